/**
 * Splits a byte stream into lines, the framing of MCP's stdio transports: a chunk may end inside a line,
 * or hold several. Bytes are kept as bytes until a line is whole, so a UTF-8 character cut between two
 * chunks decodes intact.
 */
export class LineSplitter {
  #rest: Buffer = Buffer.alloc(0)
  readonly #maxRest: number

  /** `maxRest`: the longest unfinished line kept; beyond it the line's start is dropped (its end still frames the next one). */
  constructor(maxRest = Number.POSITIVE_INFINITY) {
    this.#maxRest = maxRest
  }

  /** The lines that `chunk` completes, without their `\n` or `\r\n`. */
  push(chunk: Buffer | Uint8Array | string, encoding: BufferEncoding = 'utf8'): string[] {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : Buffer.from(chunk)
    let buffer = this.#rest.length === 0 ? bytes : Buffer.concat([this.#rest, bytes])
    const lines: string[] = []
    for (let end = buffer.indexOf(0x0a); end !== -1; end = buffer.indexOf(0x0a)) {
      lines.push(buffer.toString('utf8', 0, end).replace(/\r$/, ''))
      buffer = buffer.subarray(end + 1)
    }
    this.#rest = buffer.length > this.#maxRest ? Buffer.alloc(0) : Buffer.from(buffer)
    return lines
  }

  /** Bytes of an unfinished line held back. */
  get pending(): number {
    return this.#rest.length
  }
}
