/**
 * Builds the package into dist/: one bundled ES module per entry (the package's exports, the CLI, and
 * the modules loaded by path) plus shared chunks, by esbuild; the type declarations by `tsc`, unbundled
 * (TypeScript 7 has no compiler API for a declaration bundler). Dependencies stay imports: users share
 * them with their own code. No source maps (docs/architecture.md, "Packaging").
 *
 *   node scripts/build.ts          (what `npm run build` runs)
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { build, type Plugin } from 'esbuild'

const ROOT = join(import.meta.dirname, '..')
const DIST = join(ROOT, 'dist')

/**
 * Every file the package loads by path: the entries of package.json's `exports`, the `crashlab` bin,
 * the plugin's setup file (handed to Vitest as a path) and the diagnosis bench's agent entry (stored
 * in bench runs as a module path). Each keeps its source path under dist/ (src/index.ts →
 * dist/src/index.js); shared code goes to dist/chunks/.
 */
const ENTRY_POINTS = [
  'src/index.ts',
  'plugin/index.ts',
  'plugin/setup.ts',
  'plugin/tasks/index.ts',
  'src/testing/index.ts',
  'src/cli/bin.ts',
  'src/diagnose-bench/entry.ts',
]

/** The one module imported for what it does when loaded: it registers the matchers with Vitest's `expect`. */
const SIDE_EFFECTS = new Set([join(ROOT, 'matchers', 'index.ts')])

/**
 * Tells esbuild that crashlab's own modules do nothing when loaded but define things, so a module whose
 * exports an entry never uses is left out of that entry's files (the components' index files re-export a
 * lot). Kept here rather than as `sideEffects` in package.json, which would speak for dist/ to users'
 * bundlers too.
 */
const ownModulesArePure: Plugin = {
  name: 'own-modules-are-pure',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\// }, (args) => {
      const path = resolve(dirname(args.importer), args.path)
      if (!path.endsWith('.ts') || !existsSync(path) || SIDE_EFFECTS.has(path)) return undefined
      return { path, sideEffects: false }
    })
  },
}

const started = performance.now()
rmSync(DIST, { recursive: true, force: true })
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: ENTRY_POINTS,
  outdir: DIST,
  outbase: '.',
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  packages: 'external',
  sourcemap: false,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
  plugins: [ownModulesArePure],
})
const bundled = performance.now()
const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--emitDeclarationOnly'], {
  cwd: ROOT,
  stdio: 'inherit',
})
chmodSync(join(DIST, 'src', 'cli', 'bin.js'), 0o755)
const outputs = Object.values(result.metafile.outputs)
const bytes = outputs.reduce((n, o) => n + o.bytes, 0)
console.log(
  `dist/: ${outputs.length} bundled files (${(bytes / 1024).toFixed(0)} KiB) in ${(bundled - started).toFixed(0)} ms, declarations in ${(performance.now() - bundled).toFixed(0)} ms`,
)
