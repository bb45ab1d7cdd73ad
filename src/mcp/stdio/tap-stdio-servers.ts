import type { ChildProcess, SpawnOptions } from 'node:child_process'
import { createRequire, syncBuiltinESMExports } from 'node:module'
import { tapLiveChild } from './internal/live-tap.ts'
import { ReplayProcess } from './internal/replay-process.ts'
import type {
  StdioAnswer,
  StdioDecision,
  StdioMessageEvent,
  StdioMiss,
  StdioServer,
  StdioSpawn,
} from './types.ts'

export interface TapStdioServersOptions {
  /** Called once per spawn, before anything starts. */
  decide: (spawn: StdioSpawn) => StdioDecision
  /** Every JSON-RPC message of a `live` spawn that turned out to be an MCP server, in the order it crossed. */
  onMessage?: (event: StdioMessageEvent) => void
  /** Serves the requests of `replay` spawns; without it every request is a miss. */
  answer?: StdioAnswer
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
 * name). A `live` spawn is the real process, its messages reported to `onMessage` once its first client
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
  const previous = childProcess.spawn
  let active = true
  let spawns = 0
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
  const onMessage = guard(options.onMessage)
  const onMiss = guard(options.onMiss)

  const hooked: Spawn = function (this: unknown, command, argsOrOptions, maybeOptions) {
    if (!active) return previous.call(this, command, argsOrOptions, maybeOptions)
    const args = Array.isArray(argsOrOptions) ? (argsOrOptions as readonly string[]) : []
    const spawnOptions = (Array.isArray(argsOrOptions) ? maybeOptions : argsOrOptions) as
      | SpawnOptions
      | undefined
    const cwd = spawnOptions?.cwd === undefined ? undefined : String(spawnOptions.cwd)
    const decision = options.decide({ command, args: [...args], ...(cwd === undefined ? {} : { cwd }) })
    if (decision === 'ignore') return previous.call(this, command, argsOrOptions, maybeOptions)
    const server: StdioServer = { command, args: [...args] }
    spawns += 1
    const spawnId = spawns
    if (decision === 'replay') {
      const stdio = spawnOptions?.stdio
      return new ReplayProcess({
        server,
        spawnId,
        answer: options.answer ?? (() => undefined),
        onMiss,
        // Node's default for a missing or null entry is a pipe.
        stderr: (Array.isArray(stdio) ? stdio[2] : stdio) ?? 'pipe',
        signal: spawnOptions?.signal,
        killSignal: spawnOptions?.killSignal,
      }) as unknown as ChildProcess
    }
    const child = previous.call(this, command, argsOrOptions, maybeOptions)
    if (onMessage) tapLiveChild(child, server, spawnId, onMessage)
    return child
  }

  childProcess.spawn = hooked
  syncBuiltinESMExports()
  return {
    uninstall() {
      if (!active) return
      active = false
      // A tap installed after this one still holds `hooked`; it stays and passes through.
      if (childProcess.spawn === hooked) {
        childProcess.spawn = previous
        syncBuiltinESMExports()
      }
    },
  }
}
