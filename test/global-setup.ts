import { spawnSync } from 'node:child_process'
import { join } from 'node:path'

/**
 * Builds `dist/` once before the suite (tsc is quick), so that the CLI tests run the built `crashlab`
 * bin, as users do, and never a stale one.
 */
export default function setup(): void {
  const root = join(import.meta.dirname, '..')
  const r = spawnSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], {
    cwd: root,
    encoding: 'utf8',
  })
  if (r.status !== 0) throw new Error(`building dist/ for the CLI tests failed:\n${r.stdout}${r.stderr}`)
}
