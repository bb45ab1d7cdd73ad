import { writeSync } from 'node:fs'

/**
 * Writes `text` and a newline to standard output at once, through the file descriptor: a command that
 * prints one answer (`crashlab ls`) then never creates `process.stdout`, whose stream (a pipe's socket, a
 * terminal's tty stream) costs several milliseconds of a process that should cost little more than
 * `node -e 0`. A non-blocking output that is full (`EAGAIN`) gets the rest through `process.stdout`; a
 * reader that went away (`EPIPE`: `crashlab ls | head -1`) ends the output quietly, as it would end a
 * Unix tool's.
 *
 * @example
 * printOut(formatTable(header, rows))
 */
export function printOut(text: string): void {
  const data = Buffer.from(`${text}\n`)
  let offset = 0
  try {
    while (offset < data.length) offset += writeSync(1, data, offset)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EPIPE') return
    if (code !== 'EAGAIN') throw error
    process.stdout.write(data.subarray(offset))
  }
}
