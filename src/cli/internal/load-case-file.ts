import { readFileSync, statSync } from 'node:fs'
import { type AgentCase, loadAgentCase, parseAgentCase } from '../../case/agentcase/index.ts'
import { type Cassette, loadCassette, loadCassetteBinaries, parseCassette } from '../../case/index.ts'
import { CrashlabError } from '../../errors.ts'

export type CaseFile =
  | { kind: 'agentcase'; path: string; value: AgentCase }
  | { kind: 'cassette'; path: string; value: Cassette }

export interface LoadCaseFileOptions {
  maxBytes?: number
}

const DEFAULT_MAX_BYTES = 16 * 1024 * 1024

/**
 * Loads an AgentCase or a crashlab cassette, telling them apart by their format field (and, for a file
 * that is not JSON at all, by its extension), so that every error comes from the right strict reader.
 * A cassette's sidecar files (binary bodies) are read and checked too. Every failure is a CrashlabError.
 *
 * @example
 * const file = loadCaseFile('failures/refund.agentcase')
 * file.kind // 'agentcase'
 */
export function loadCaseFile(path: string, options: LoadCaseFileOptions = {}): CaseFile {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
  let size: number
  try {
    const st = statSync(path)
    if (!st.isFile()) throw new Error('not a file')
    size = st.size
  } catch (cause) {
    throw new CrashlabError('E_FILE_NOT_FOUND', `no file at ${path}. Check the path.`, {
      cause,
      subject: path,
    })
  }
  const kindByName = path.endsWith('.agentcase') ? 'agentcase' : 'cassette'
  // Over the bound: each reader refuses it from its size, without reading it.
  if (size > maxBytes) {
    if (kindByName === 'agentcase') loadAgentCase(path, { maxBytes })
    else loadCassette(path, { maxBytes, binaries: false })
  }

  let bytes: Buffer
  try {
    bytes = readFileSync(path)
  } catch (cause) {
    throw new CrashlabError(
      'E_FILE_NOT_FOUND',
      `${path} could not be read (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message}). Check its permissions.`,
      { cause, subject: path },
    )
  }
  let root: unknown
  try {
    root = JSON.parse(bytes.toString('utf8'))
  } catch {
    return parseAs(kindByName, path, bytes, maxBytes)
  }
  if (root && typeof root === 'object' && !Array.isArray(root)) {
    const r = root as Record<string, unknown>
    if ('format_name' in r) return parseAs('agentcase', path, bytes, maxBytes)
    if ('format' in r) return parseAs('cassette', path, bytes, maxBytes)
  }
  throw new CrashlabError(
    'E_FILE_UNKNOWN',
    `${path} is JSON but neither an AgentCase (no "format_name") nor a crashlab cassette (no "format"). ` +
      'Pass a .agentcase file or a cassette from __cassettes__/.',
    { subject: path },
  )
}

function parseAs(kind: CaseFile['kind'], path: string, bytes: Uint8Array, maxBytes: number): CaseFile {
  if (kind === 'agentcase') return { kind, path, value: parseAgentCase(bytes, { maxBytes, source: path }) }
  const value = parseCassette(bytes, { maxBytes, source: path })
  loadCassetteBinaries(path, value)
  return { kind, path, value }
}
