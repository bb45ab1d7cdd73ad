import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

/**
 * Builds `dist/` once before the suite (`npm run build`'s script: a few seconds), so that the CLI tests
 * run the built `crashlab` bin, and the fixture projects the built package, as users do, and never a
 * stale one.
 */
export default function setup(): void {
  const root = join(import.meta.dirname, '..')
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'build.ts')], { cwd: root, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`building dist/ for the CLI tests failed:\n${r.stdout}${r.stderr}`)
}
