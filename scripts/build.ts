/**
 * Builds the package into dist/: one bundled ES module per entry (the package's exports, the CLI, and
 * the modules loaded by path) plus shared chunks, by rolldown; the type declarations by `tsc`, unbundled
 * (TypeScript 7 has no compiler API for a declaration bundler). Dependencies stay imports: users share
 * them with their own code. No source maps (docs/architecture.md, "Packaging").
 *
 *   node scripts/build.ts          (what `npm run build` runs)
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, rmSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import { type InputOptions, type OutputOptions, type Plugin, rolldown } from 'rolldown'
import { builtinsByGetter } from './builtins-by-getter.ts'

const ROOT = join(import.meta.dirname, '..')
const DIST = join(ROOT, 'dist')

/**
 * Every file the package loads by path: the entries of package.json's `exports` (but `crashlab/otel`,
 * below), the plugin's setup
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
const CLI_CHUNKS = 'src/cli/chunks'

/**
 * `crashlab/otel` (the span processor) is built apart too, with its own chunks
 * (dist/src/otel-capture/chunks/): it writes runs with the store, the redactor and the trace readers,
 * a part of the core that the core's entry holds in a few large chunks, and sharing it would cut those
 * into more files for every `import('crashlab')`. Two copies in one process agree: the redaction rules
 * added through `redaction` live on `globalThis`, and the store is SQLite, which any number of
 * connections share.
 */
const OTEL_ENTRIES = ['src/otel-capture/index.ts']
const OTEL_CHUNKS = 'src/otel-capture/chunks'

/** The one module imported for what it does when loaded: it registers the matchers with Vitest's `expect`. */
const SIDE_EFFECTS = join(ROOT, 'matchers', 'index.ts')

/** An entry's output name: its source path without `.ts` (src/index.ts → dist/src/index.js). */
const named = (entries: string[]): Record<string, string> =>
  Object.fromEntries(entries.map((entry) => [entry.replace(/\.ts$/, ''), join(ROOT, entry)]))

const inputOptions = {
  cwd: ROOT,
  platform: 'node',
  // Dependencies stay imports (the user shares them); `node:` built-ins too.
  external: (id: string) => !id.startsWith('.') && !isAbsolute(id),
  // crashlab's own modules do nothing when loaded but define things, so a module whose exports an entry
  // never uses is left out of that entry's files (the components' index files re-export a lot). Kept
  // here rather than as `sideEffects` in package.json, which would speak for dist/ to users' bundlers too.
  treeshake: { moduleSideEffects: (id: string, external: boolean) => external || id === SIDE_EFFECTS },
  transform: { target: 'node22' },
  logLevel: 'warn',
} satisfies InputOptions

const outputOptions = (chunks: string) =>
  ({
    dir: DIST,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: `${chunks}/[name]-[hash].js`,
    sourcemap: false,
    // Readable output without the sources' comments (docs/architecture.md, "No source maps").
    comments: { legal: false, annotation: true, jsdoc: false },
  }) satisfies OutputOptions

/** The CLI's imports of Node's built-ins as `process.getBuiltinModule()` calls (scripts/builtins-by-getter.ts). */
const builtinsPlugin: Plugin = {
  name: 'crashlab:builtins-by-getter',
  renderChunk: (code) => ({ code: builtinsByGetter(code) }),
}

const started = performance.now()
rmSync(DIST, { recursive: true, force: true })
const results = await Promise.all(
  [
    { entries: LIBRARY_ENTRIES, chunks: 'chunks' },
    { entries: CLI_ENTRIES, chunks: CLI_CHUNKS },
    { entries: OTEL_ENTRIES, chunks: OTEL_CHUNKS },
  ].map(async ({ entries, chunks }) => {
    const bundle = await rolldown({
      ...inputOptions,
      input: named(entries),
      plugins: chunks === CLI_CHUNKS ? [builtinsPlugin] : [],
    })
    try {
      return (await bundle.write(outputOptions(chunks))).output
    } finally {
      await bundle.close()
    }
  }),
)
const bundled = performance.now()
const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--emitDeclarationOnly'], {
  cwd: ROOT,
  stdio: 'inherit',
})
chmodSync(join(DIST, 'src', 'cli', 'bin.js'), 0o755)
const outputs = results.flat()
const bytes = outputs.reduce((n, o) => n + (o.type === 'chunk' ? Buffer.byteLength(o.code) : 0), 0)
// On stderr: `npm pack --json` runs this (prepare) and its stdout must stay JSON.
console.error(
  `dist/: ${outputs.length} bundled files (${(bytes / 1024).toFixed(0)} KiB) in ${(bundled - started).toFixed(0)} ms, declarations in ${(performance.now() - bundled).toFixed(0)} ms`,
)
