import type { Session } from '../engine/session.ts'

/**
 * The Session that MCP exchanges made outside any test's Session go to: a client connected at module
 * level or in `beforeAll` sends `initialize` and `tools/list` before any test runs, and closes in
 * `afterAll`. The plugin opens one per test file (its cassette is `outside-tests.mcp.json` beside the
 * test file's cassettes, `mcpFileCassettePath`) and sets it here; the interceptor and the stdio tap use
 * it when `currentSession()` is undefined. Only MCP goes to it: a model call outside a test's Session
 * follows the replay rule as before.
 *
 * Kept on `globalThis`, as the Session store is, so two copies of crashlab in one process share it.
 *
 * @example
 * setMcpOutsideSession(new Session({ mode: 'replay', recorded: loadCassette(path).run }))
 * mcpOutsideSession()?.mode // 'replay'
 */
export function setMcpOutsideSession(session: Session | undefined): void {
  shared[KEY] = session
}

/** The Session MCP exchanges outside any test go to, if the plugin opened one (`setMcpOutsideSession`). */
export function mcpOutsideSession(): Session | undefined {
  return shared[KEY]
}

const KEY = Symbol.for('crashlab.mcp-outside-session')
const shared = globalThis as { [KEY]?: Session }

/** The file name of a test file's MCP cassette for exchanges outside its tests (`setMcpOutsideSession`). */
export const MCP_FILE_CASSETTE = 'outside-tests.mcp.json'
