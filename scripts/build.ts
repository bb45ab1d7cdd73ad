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
import { type BuildOptions, build, type Plugin } from 'esbuild'

const ROOT = join(import.meta.dirname, '..')
const DIST = join(ROOT, 'dist')

/**
 * Every file the package loads by path: the entries of package.json's `exports`, the plugin's setup
 * file (handed to Vitest as a path) and the diagnosis bench's agent entry (stored in bench runs as a
 * module path). Each keeps its source path under dist/ (src/index.ts → dist/src/index.js); the code they
 * share goes to dist/chunks/.
 */
const LIBRARY_ENTRIES = [
  'src/index.ts',
  'plugin/index.ts',
  'plugin/setup.ts',
  'plugin/tasks/index.ts',
  'src/testing/index.ts',
  'src/diagnose-bench/entry.ts',
]

/**
 * The `crashlab` bin is built apart, with its own chunks (dist/src/cli/chunks/): it loads each command
 * when it runs, and in one build those twenty lazy entries would cut the library's chunks into many
 * more files, which every Vitest worker would then load. The CLI and a library it loads in the same
 * process (an agent's entry module) already share their run state through `globalThis`
 * (src/engine/context.ts), as they did before the build bundled.
 */
const CLI_ENTRIES = ['src/cli/bin.ts']

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
const common = {
  absWorkingDir: ROOT,
  outdir: DIST,
  outbase: '.',
  entryNames: '[dir]/[name]',
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
} satisfies BuildOptions
const results = await Promise.all([
  build({ ...common, entryPoints: LIBRARY_ENTRIES, chunkNames: 'chunks/[name]-[hash]' }),
  build({ ...common, entryPoints: CLI_ENTRIES, chunkNames: 'src/cli/chunks/[name]-[hash]' }),
])
const bundled = performance.now()
const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--emitDeclarationOnly'], {
  cwd: ROOT,
  stdio: 'inherit',
})
chmodSync(join(DIST, 'src', 'cli', 'bin.js'), 0o755)
const outputs = results.flatMap((r) => Object.values(r.metafile.outputs))
const bytes = outputs.reduce((n, o) => n + o.bytes, 0)
// On stderr: `npm pack --json` runs this (prepare) and its stdout must stay JSON.
console.error(
  `dist/: ${outputs.length} bundled files (${(bytes / 1024).toFixed(0)} KiB) in ${(bundled - started).toFixed(0)} ms, declarations in ${(performance.now() - bundled).toFixed(0)} ms`,
)
