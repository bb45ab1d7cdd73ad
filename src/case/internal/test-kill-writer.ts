/**
 * The child process of the SIGKILL test (`cassette-kill.test.ts`), run directly by Node 22 (type
 * stripping). It writes two different cassettes to one target in turns, as fast as it can, until it is
 * killed, and reports on stdout: `ready` when it is about to start, then `wrote <n>` after each completed
 * write (stdout to a pipe is synchronous on Linux, so a line never runs ahead of its write).
 *
 *   node test-kill-writer.ts cassette <target> <steps>   writeCassette() of two built runs
 *   node test-kill-writer.ts bytes <target> <a> <b>      writeFileAtomic() of two files' bytes
 *
 * `bytes` is the last step of `writeCassette` alone: what reaches the disk, and the only part that
 * touches the target. It starts in a fraction of the time (no zod, no redactor), which is what lets
 * the test afford a hundred kills; `cassette` runs the whole writer for the rest.
 *
 * It stops by itself after 20 seconds so that a parent that dies first never leaves it spinning.
 */
const [mode, target, ...rest] = process.argv.slice(2)
if (!target || (mode !== 'cassette' && mode !== 'bytes')) {
  throw new Error('usage: node test-kill-writer.ts cassette <target> <steps> | bytes <target> <a> <b>')
}

let write: (n: number) => void
if (mode === 'cassette') {
  const { writeCassette } = await import('../cassette-write.ts')
  const { buildRealisticRun } = await import('./test-runs.ts')
  const steps = Number(rest[0] ?? 80)
  const runs = [buildRealisticRun({ steps, seed: 1 }), buildRealisticRun({ steps, seed: 2 })]
  write = (n) => void writeCassette(target, runs[n % 2]!)
} else {
  const { readFileSync } = await import('node:fs')
  const { writeFileAtomic } = await import('../atomic-write.ts')
  const texts = rest.map((file) => readFileSync(file, 'utf8'))
  write = (n) => writeFileAtomic(target, texts[n % 2]!)
}

const deadline = Date.now() + 20_000
process.stdout.write('ready\n')
for (let n = 1; Date.now() < deadline; n++) {
  write(n)
  process.stdout.write(`wrote ${n}\n`)
}
