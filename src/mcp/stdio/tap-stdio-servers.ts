import type { ChildProcess, SpawnOptions } from 'node:child_process'
import { createRequire, syncBuiltinESMExports } from 'node:module'
import { type Refuse, tapLiveChild } from './internal/live-tap.ts'
import { ReplayProcess } from './internal/replay-process.ts'
import type {
  StdioAnswer,
  StdioDecision,
  StdioMessageEvent,
  StdioMiss,
  StdioServer,
  StdioSpawn,
} from './types.ts'

/** What `tapStdioServers` does with each spawn, and where it reports. */
export interface TapStdioServersOptions {
  /** Called once per spawn, before anything starts. */
  decide: (spawn: StdioSpawn) => StdioDecision
  /** Every JSON-RPC message of a `live` spawn that turned out to be an MCP server, in the order it crossed. */
  onMessage?: (event: StdioMessageEvent) => void
  /** Serves the requests of `replay` spawns; without it every request is a miss. */
  answer?: StdioAnswer
  /**
   * Asked when a `live` spawn turns out to be an MCP server (its client's opening request): an error
   * refuses it. The opening request never reaches the process, which is ended, and the client gets a
   * JSON-RPC error with the error's message. A replay uses it for a server its recording does not hold.
   */
  refuse?: Refuse
  /** A request `answer` could not serve: the client got a JSON-RPC error; the caller should fail the replay. */
  onMiss?: (miss: StdioMiss) => void
  /**
   * An error thrown by `onMessage` or `onMiss`. It never reaches the client's pipe (that would break the
   * agent's transport, not the test); by default it is thrown again on the next tick, so it is not lost.
   */
  onError?: (error: unknown) => void
}

/** An installed tap: `uninstall()` puts `child_process.spawn` back. */
export interface StdioTap {
  uninstall(): void
}

type Spawn = (
  command: string,
  args?: readonly string[] | SpawnOptions,
  options?: SpawnOptions,
) => ChildProcess

const childProcess = createRequire(import.meta.url)('node:child_process') as { spawn: Spawn }

/**
 * Sees the MCP servers an agent starts over stdio, and replays them without starting them.
 *
 * The official SDK (`@modelcontextprotocol/sdk`), `@modelcontextprotocol/client` (what the Agents SDK's
 * `MCPServerStdio` uses) and `@ai-sdk/mcp` all start their server with `cross-spawn`, which calls
 * `require('child_process').spawn` when it runs: the tap replaces that function on Node's one
 * `child_process` exports object (and syncs the ES-module view of it, for code that imports `spawn` by
 * name). Taps nest: the newest decides first, and a spawn it ignores goes to the one installed before it.
 * A `live` spawn is the real process, its messages reported to `onMessage` once its first client
 * line is an opening MCP request; a `replay` spawn starts no process and answers from `answer`; an
 * `ignore` spawn is untouched.
 *
 * @example
 * const events: StdioMessageEvent[] = []
 * const tap = tapStdioServers({ decide: () => 'live', onMessage: (e) => events.push(e) })
 * try { await runAgent() } finally { tap.uninstall() }
 * // later, offline: the server is never started
 * const replay = tapStdioServers({ decide: () => 'replay', answer: recordedAnswerer(events), onMiss: fail })
 */
export function tapStdioServers(options: TapStdioServersOptions): StdioTap {
  const guard = <A extends unknown[]>(fn: ((...args: A) => void) | undefined) =>
    fn === undefined
      ? undefined
      : (...args: A) => {
          try {
            fn(...args)
          } catch (error) {
            if (options.onError) options.onError(error)
            else
              process.nextTick(() => {
                throw error
              })
          }
        }
  const tap: InstalledTap = {
    options,
    onMessage: guard(options.onMessage),
    onMiss: guard(options.onMiss),
    spawns: 0,
  }
  const registry = taps()
  if (registry.list.length === 0 && childProcess.spawn !== registry.hook) {
    registry.original = childProcess.spawn
    childProcess.spawn = registry.hook
    syncBuiltinESMExports()
  }
  registry.list.push(tap)
  return {
    uninstall() {
      const index = registry.list.indexOf(tap)
      if (index === -1) return
      registry.list.splice(index, 1)
      // Code that wrapped spawn after the tap still holds the hook, which passes through once no tap is left.
      if (registry.list.length === 0 && childProcess.spawn === registry.hook) {
        childProcess.spawn = registry.original
        syncBuiltinESMExports()
      }
    },
  }
}

interface InstalledTap {
  options: TapStdioServersOptions
  onMessage: ((event: StdioMessageEvent) => void) | undefined
  onMiss: ((miss: StdioMiss) => void) | undefined
  spawns: number
}

interface Registry {
  /** Installed taps, oldest first: the newest decides first, and one that ignores a spawn hands it to the one before. */
  list: InstalledTap[]
  original: Spawn
  hook: Spawn
}

/**
 * The one hook on `child_process.spawn` and the taps it serves, kept on `globalThis`: a process that holds
 * two copies of crashlab (its sources and its build) must not install two hooks that restore each other.
 */
function taps(): Registry {
  const key = Symbol.for('crashlab.mcp.stdio.taps')
  const store = globalThis as unknown as Record<symbol, Registry | undefined>
  let registry = store[key]
  if (registry === undefined) {
    const created: Registry = {
      list: [],
      original: childProcess.spawn,
      hook(this: unknown, command, argsOrOptions, maybeOptions) {
        return spawnThrough(created, created.list.length - 1, this, command, argsOrOptions, maybeOptions)
      },
    }
    registry = created
    store[key] = created
  }
  return registry
}

function spawnThrough(
  registry: Registry,
  index: number,
  self: unknown,
  command: string,
  argsOrOptions: readonly string[] | SpawnOptions | undefined,
  maybeOptions: SpawnOptions | undefined,
): ChildProcess {
  const tap = registry.list[index]
  if (tap === undefined) return registry.original.call(self, command, argsOrOptions, maybeOptions)
  const args = Array.isArray(argsOrOptions) ? (argsOrOptions as readonly string[]) : []
  const spawnOptions = (Array.isArray(argsOrOptions) ? maybeOptions : argsOrOptions) as
    | SpawnOptions
    | undefined
  const cwd = spawnOptions?.cwd === undefined ? undefined : String(spawnOptions.cwd)
  const decision = tap.options.decide({ command, args: [...args], ...(cwd === undefined ? {} : { cwd }) })
  if (decision === 'ignore')
    return spawnThrough(registry, index - 1, self, command, argsOrOptions, maybeOptions)
  const server: StdioServer = {
    command,
    args: [...args],
    ...(cwd === undefined ? {} : { cwd }),
    ...(spawnOptions?.env === undefined ? {} : { env: spawnOptions.env }),
  }
  tap.spawns += 1
  const spawnId = tap.spawns
  if (decision === 'replay') {
    const stdio = spawnOptions?.stdio
    return new ReplayProcess({
      server,
      spawnId,
      answer: tap.options.answer ?? (() => undefined),
      onMiss: tap.onMiss,
      // Node's default for a missing or null entry is a pipe.
      stderr: (Array.isArray(stdio) ? stdio[2] : stdio) ?? 'pipe',
      signal: spawnOptions?.signal,
      killSignal: spawnOptions?.killSignal,
    }) as unknown as ChildProcess
  }
  const child = registry.original.call(self, command, argsOrOptions, maybeOptions)
  if (tap.onMessage || tap.options.refuse)
    tapLiveChild(child, server, spawnId, tap.onMessage ?? (() => {}), tap.options.refuse)
  return child
}

/**
 * Starts a process with `child_process.spawn` as it was before any tap: no tap sees it. For crashlab's
 * own use of a server (listing a changed server's tools, `listToolsLive`), never the agent's.
 */
export function spawnUntapped(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  return taps().original.call(childProcess, command, args, options)
}
