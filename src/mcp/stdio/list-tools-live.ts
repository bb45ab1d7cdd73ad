import { CrashlabError } from '../../errors.ts'
import { VERSION } from '../../version.ts'
import { commandLine } from './command-line.ts'
import { LineSplitter } from './internal/line-splitter.ts'
import { isJsonRpcResponse, type JsonRpcResponse, parseJsonRpcLine } from './json-rpc.ts'
import { spawnUntapped } from './tap-stdio-servers.ts'
import type { StdioServer } from './types.ts'

/** One tool as a server lists it (`tools/list`): what a model sees of it. */
export interface ListedTool {
  name: string
  description?: string
  inputSchema?: unknown
}

/** How long listing a server's tools may take, start-up included. */
const LIST_TIMEOUT_MS = 15_000
/** The protocol version asked for; a server answers with the one it speaks. */
const PROTOCOL_VERSION = '2025-06-18'

/**
 * Starts a stdio MCP server as its client did (its command line, working directory and environment),
 * opens a session, lists its tools (every page) and ends it. No tool is called. crashlab's own spawn,
 * unseen by any tap: a replay uses it only for a server whose source changed since the recording
 * (`serverSourceDigest`), to name what changed.
 *
 * @example
 * const tools = await listToolsLive({ command: 'node', args: ['servers/orders.mjs'] })
 * tools.map((t) => t.name) // ['get_order', 'issue_refund']
 */
export async function listToolsLive(server: StdioServer): Promise<ListedTool[]> {
  const child = spawnUntapped(server.command, server.args, {
    stdio: ['pipe', 'pipe', 'ignore'],
    ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
    ...(server.env === undefined ? {} : { env: server.env }),
  })
  const waiting = new Map<number, (response: JsonRpcResponse) => void>()
  const lines = new LineSplitter()
  let failed: (error: Error) => void = () => {}
  const failure = new Promise<never>((_, reject) => {
    failed = reject
  })
  failure.catch(() => {})
  const timer = setTimeout(
    () => failed(listError(server, `it did not list its tools within ${LIST_TIMEOUT_MS / 1000} s`)),
    LIST_TIMEOUT_MS,
  )
  child.on('error', (error) => failed(listError(server, error.message)))
  child.on('exit', (code) => failed(listError(server, `it exited (code ${code}) before it listed its tools`)))
  child.stdout?.on('data', (chunk: Buffer) => {
    for (const line of lines.push(chunk, 'utf8')) {
      const message = parseJsonRpcLine(line)
      if (message === undefined || !isJsonRpcResponse(message) || typeof message.id !== 'number') continue
      waiting.get(message.id)?.(message)
    }
  })
  let nextId = 1
  const request = (method: string, params: unknown): Promise<unknown> => {
    const id = nextId++
    const answered = new Promise<unknown>((done, reject) => {
      waiting.set(id, (response) =>
        response.error
          ? reject(listError(server, `${method} failed: ${response.error.message}`))
          : done(response.result),
      )
    })
    child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
    return Promise.race([answered, failure])
  }
  try {
    await request('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'crashlab', version: VERSION },
    })
    child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)
    const tools: ListedTool[] = []
    let cursor: string | undefined
    do {
      const page = (await request('tools/list', cursor === undefined ? {} : { cursor })) as {
        tools?: ListedTool[]
        nextCursor?: string
      }
      tools.push(...(page.tools ?? []))
      cursor = page.nextCursor
    } while (cursor !== undefined)
    return tools
  } finally {
    clearTimeout(timer)
    child.removeAllListeners('exit')
    child.stdin?.end()
    child.kill()
  }
}

function listError(server: StdioServer, why: string): CrashlabError {
  return new CrashlabError(
    'E_MCP_REPLAY_MISSING',
    `could not list the tools of MCP server \`${commandLine(server)}\` to compare them with the recording: ${why}.`,
    { subject: commandLine(server) },
  )
}
