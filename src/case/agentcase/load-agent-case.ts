import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { CrashlabError } from '../../errors.ts'
import { type ParseAgentCaseOptions, parseAgentCase } from './parse-agent-case.ts'
import { AGENTCASE_MAX_BYTES, type AgentCase } from './schema.ts'

/**
 * Loads an `.agentcase` file. The size is read from the open file before any byte is, so a huge file is
 * refused without being loaded into memory; then the bytes go through `parseAgentCase`.
 *
 * @example
 * const c = loadAgentCase('failures/refund.agentcase')
 * const run = fromAgentCase(c)
 */
export function loadAgentCase(path: string, options: Omit<ParseAgentCaseOptions, 'source'> = {}): AgentCase {
  const maxBytes = options.maxBytes ?? AGENTCASE_MAX_BYTES
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code
    if (code !== 'ENOENT') {
      throw new CrashlabError(
        'E_FILE_NOT_FOUND',
        `${path} could not be read (${code ?? (cause as Error).message}). Check its permissions and the path.`,
        { cause, subject: path },
      )
    }
    throw new CrashlabError(
      'E_FILE_NOT_FOUND',
      `no AgentCase file at ${path}. Check the path, or export one with toAgentCase + writeAgentCase.`,
      { cause, subject: path },
    )
  }
  try {
    // Stat the open descriptor, not the path: the file measured is the file read.
    const stat = fstatSync(fd)
    if (!stat.isFile()) {
      throw new CrashlabError(
        'E_FILE_NOT_FOUND',
        `${path} is not a file. Pass the path of an .agentcase file.`,
        {
          subject: path,
        },
      )
    }
    const size = stat.size
    if (size > maxBytes) {
      throw new CrashlabError(
        'E_AGENTCASE_TOO_LARGE',
        `${path} is ${size} bytes, over the AgentCase size bound of ${maxBytes} bytes; it was refused before reading. Trim large payloads from the run before exporting it, or pass a larger maxBytes if you trust the file.`,
        { subject: path },
      )
    }
    // Read at most maxBytes + 1: a file that grew since fstat is still caught by parseAgentCase's own check.
    const buf = Buffer.allocUnsafe(Math.min(size, maxBytes) + 1)
    let n = 0
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, null)
      if (got === 0) break
      n += got
    }
    return parseAgentCase(buf.subarray(0, n), { maxBytes, source: path })
  } finally {
    closeSync(fd)
  }
}
