import { join } from 'node:path'
import {
  type CassetteStore,
  createRun,
  type MatchingOptions,
  MCP_FILE_CASSETTE,
  type RecordMode,
  type Redactor,
  Session,
  type StdioTap,
  setMcpOutsideSession,
  tapStdioIntoSessions,
} from '../../src/internal.ts'

/** What `openMcpOutsideTests` needs: the test file, its record mode, and the worker's store and rules. */
export interface McpOutsideTestsOptions {
  testFile: string | undefined
  mode: RecordMode
  store: CassetteStore
  redactor: Redactor | undefined
  matching: MatchingOptions | undefined
}

/**
 * MCP for one test file (docs/mcp.md, "Outside a test"): the stdio tap, and the Session that MCP
 * exchanges made outside any test's Session go to (a client connected at module level or in
 * `beforeAll`), with its cassette `outside-tests.mcp.json` beside the test file's cassettes.
 *
 * - `all` (`crashlab vitest --record`), or no such cassette yet in `missing` or `diverged`: recorded, and
 *   written when the file ends if anything MCP happened outside the tests.
 * - the cassette exists: replayed from it; in `missing` and `diverged` an exchange it does not hold goes
 *   live and the cassette is written again, in `replay` it is a divergence the MCP client sees.
 * - `replay` with no such cassette: a replay of nothing, so an MCP server started outside the tests is
 *   refused (never let run) and an MCP request over HTTP is a divergence.
 * - `off`: no Session.
 *
 * @example
 * const mcp = openMcpOutsideTests({ testFile, mode: 'replay', store, redactor, matching })
 * afterAll(() => mcp.close())
 */
export function openMcpOutsideTests(options: McpOutsideTestsOptions): { close(): Promise<void> } {
  const tap: StdioTap = tapStdioIntoSessions()
  const { testFile, mode, store } = options
  const path = testFile === undefined ? undefined : join(store.folderOf(testFile), MCP_FILE_CASSETTE)
  const session = path === undefined || mode === 'off' ? undefined : openSession(path, options)
  setMcpOutsideSession(session)
  return {
    async close() {
      tap.uninstall()
      setMcpOutsideSession(undefined)
      if (!session || !path) return
      // What failed outside the tests (a server the recording does not hold, a call it does not hold)
      // was answered to the MCP client as an error, which the client may report as something else
      // ("Connection closed"): the file fails with crashlab's own message too.
      const failure = session.mode === 'replay' ? session.errors[0] : undefined
      if (failure) throw failure
      const recorded = session.mode === 'record' && session.run.steps.length > 0
      if (!recorded) return
      // A replay's failures were answered to the MCP client already; a recording ends without any.
      const run = await session.finish().catch(() => session.run)
      store.writeCassette(path, run)
    },
  }
}

function openSession(path: string, options: McpOutsideTestsOptions): Session | undefined {
  const { mode, store, redactor, matching } = options
  const common = {
    name: 'mcp',
    label: 'MCP outside the tests',
    cassettePath: path,
    ...(redactor && { redactor }),
    ...(matching && { matching }),
  }
  const exists = store.exists(path)
  if (exists && mode !== 'all') {
    return new Session({
      ...common,
      mode: 'replay',
      recorded: store.readCassette(path).run,
      allowUnused: true,
      onDivergence: mode === 'replay' ? 'fail' : 'record',
    })
  }
  // A strict replay with nothing recorded outside the tests: an MCP server started there is refused.
  if (mode === 'replay')
    return new Session({ ...common, mode: 'replay', recorded: createRun({ name: 'mcp', input: null }) })
  return new Session({ ...common, mode: 'record' })
}
