import { basename } from 'node:path'
import type { Step } from '../case/schema/step.ts'
import { currentSession } from '../engine/context.ts'
import type { Session } from '../engine/session.ts'
import { CrashlabError } from '../errors.ts'
import { mcpOutsideSession } from './outside-tests.ts'
import { commandLine, stdioUrl } from './stdio/command-line.ts'
import { type StdioTap, tapStdioServers } from './stdio/tap-stdio-servers.ts'
import type { StdioMessageEvent, StdioServer, StdioSpawn } from './stdio/types.ts'
import type { Pending } from './stdio-recording.ts'

type Recording = typeof import('./on-demand.ts')

/**
 * Records and replays the MCP servers an agent starts over stdio through crashlab's Sessions, as the
 * interceptor does for MCP over HTTP (docs/mcp-stdio.md): one `tapStdioServers` tap whose decisions and
 * messages follow the Session of the code that starts the server or writes to it, else the per-file MCP
 * Session (`mcpOutsideSession`, for a client connected in `beforeAll`).
 *
 * - recording: the server runs; each request and its answer become a step of the Session current when the
 *   request was written, once the answer comes: `tools/call` a `tool` step with `mcp`, anything else an
 *   `http` step `mcp:<method>`. The step's request is the JSON-RPC request, its URL `stdio:` and the
 *   server's command line (paths under the working directory made relative, the command's folder
 *   dropped), its response the JSON-RPC answer.
 * - replay: a spawn whose command line the recording (the test's, or the file's MCP cassette) holds starts
 *   no process; each request is answered by the first unused recorded step of that server with the same
 *   method and params, readdressed to the live id. A request the recording does not hold fails the
 *   Session as a divergence naming the tool, and the client gets a JSON-RPC error. A spawn the recording
 *   does not hold runs (it may be no MCP server at all: `git`, a shell).
 * - `passthrough`, and no Session at all: untouched.
 *
 * @example
 * const tap = tapStdioIntoSessions()
 * afterAll(() => tap.uninstall())
 */
export function tapStdioIntoSessions(): StdioTap {
  const pending = new Map<string, Pending>()
  // The recording side is loaded when a process is started (most test files start none), and messages
  // that come before it is loaded wait for it, in order, with the Session and time they came with.
  let recording: Recording | undefined
  let loading: Promise<Recording> | undefined
  const load = () => {
    loading ??= import('./on-demand.ts').then((module) => {
      recording = module
      return module
    })
    return loading
  }
  const waiting: Array<(module: Recording) => void> = []
  const withRecording = (use: (module: Recording) => void) => {
    if (recording && waiting.length === 0) return use(recording)
    waiting.push(use)
    if (waiting.length === 1)
      void load().then((module) => {
        for (const next of waiting.splice(0)) next(module)
      })
  }
  return tapStdioServers({
    decide: (spawn) => {
      const decision = decide(spawn)
      if (decision !== 'ignore') void load()
      return decision
    },
    refuse: (server) => refuse(server),
    onMessage: (event: StdioMessageEvent) => {
      const session = event.direction === 'to-server' ? sessionNow() : undefined
      const at = { startedAt: new Date().toISOString(), t0: performance.now() }
      withRecording((module) => module.recordMessage(pending, event, session, at))
    },
    answer: async (server, request) => {
      const current = currentSession()
      return (await load()).answer(server, request, current, mcpOutsideSession())
    },
    onMiss: ({ server, request }) => {
      const session = sessionNow()
      if (session) withRecording((module) => module.missed(session, server, request))
    },
  })
}

function sessionNow(): Session | undefined {
  return currentSession() ?? mcpOutsideSession()
}

function decide(spawn: StdioSpawn): 'live' | 'replay' | 'ignore' {
  const session = sessionNow()
  if (!session || session.mode === 'passthrough') return 'ignore'
  if (session.mode === 'replay' || session.forkAt !== undefined) {
    const url = stdioUrl(spawn)
    if (holdsServer(session, url) || holdsServer(mcpOutsideSession(), url)) return 'replay'
  }
  // Recorded; or, in a replay, watched: it may be no MCP server at all (`git`, a shell), which runs as
  // it is, while an MCP server the recording does not hold is refused or recorded (`refuse`).
  return 'live'
}

/**
 * A live spawn in a replay turned out to be an MCP server the recording does not hold: a strict replay
 * refuses it (the server gets nothing, the client an error naming it) and fails; a replay that records
 * what changed (`diverged`, `missing` for the file's MCP cassette, a fork) records it from here.
 */
function refuse(server: StdioServer): Error | undefined {
  const session = sessionNow()
  if (session?.mode !== 'replay') return undefined
  const error = new CrashlabError(
    'E_MCP_REPLAY_MISSING',
    `MCP server \`${commandLine(server)}\` was started in a replay, but ${where(session)} ` +
      'holds no server with that command line: it was sent nothing and ended, and its tools did not run. ' +
      'Re-record (npx crashlab vitest --record), or start the server with the command line it was recorded with.',
    { subject: stdioUrl(server) },
  )
  if (session.recordFrom(error)) return undefined
  session.fail(error)
  return error
}

function where(session: Session): string {
  return session.cassettePath ? `the recording (${basename(session.cassettePath)})` : 'the recording'
}

function holdsServer(session: Session | undefined, url: string): boolean {
  return session?.recorded?.steps.some((s) => stdioUrlOf(s) === url) ?? false
}

/** The address of an MCP step (`stdio:` and a command line for a stdio server's), read without loading the MCP exchange. */
function stdioUrlOf(step: Step): string | undefined {
  if (step.type === 'tool') return step.mcp?.request.url
  return step.type === 'http' && step.label.startsWith('mcp:') ? step.request.url : undefined
}
