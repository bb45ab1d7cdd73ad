import type { Run } from '../../case/schema/run.ts'
import { EXPORTED_TAG } from '../exported-tag.ts'

interface SourceOptions {
  /** The cassette, relative to the test file (`./__cassettes__/…`). */
  cassette: string
  importFrom: string
  suite: string
}

/** The text of an exported regression test: replay the cassette, assert what the run had. */
export function exportedTestSource(run: Run, options: SourceOptions): string {
  const findings = run.findings.map(({ kind, severity, steps }) => ({ kind, severity, steps }))
  const kinds = [...new Set(run.findings.map((f) => f.kind))]
  const replays = run.entryPoint?.kind === 'module'
  const lines = [
    `// Exported by \`crashlab export-test ${run.id}\` from the run of ${run.name.replace(/\s+/g, ' ')} started ${run.startedAt}.`,
    '// A regression test: it loads the run from its cassette beside this file, ' +
      (replays
        ? `replays it offline through its entry point (${run.entryPoint?.kind === 'module' ? `${run.entryPoint.module}#${run.entryPoint.export}` : ''}),`
        : 'grades it again with the runtime checks,'),
    '// and asserts the status, check results and findings the run had. Run it with `npx crashlab vitest --exported`',
    `// (or \`npx vitest --tags-filter=${EXPORTED_TAG}\`: the crashlab() plugin declares the tag).`,
    `import { crashlabReplay, crashlabStore } from ${str(options.importFrom)}`,
    "import { describe, expect, test } from 'vitest'",
    '',
    "const it = test.extend('crashlabStore', crashlabStore)",
    '',
    `describe(${str(options.suite)}, { tags: [${str(EXPORTED_TAG)}] }, () => {`,
    `  it(${str(`${run.name} run ${run.id}`)}, async ({ crashlabStore }) => {`,
    `    const run = await crashlabReplay(${str(options.cassette)}, { store: crashlabStore })`,
    `    expect(run.status).toBe(${str(run.status)})`,
    `    expect(run.outcome).toBe(${str(run.outcome)})`,
    `    expect(run.checks).toEqual(${literal(run.checks, 4)})`,
    `    expect(run.findings.map(({ kind, severity, steps }) => ({ kind, severity, steps }))).toEqual(${literal(findings, 4)})`,
    ...kinds.map((kind) => `    expect(run).toHaveFinding(${str(kind)})`),
    ...(replays
      ? ['    expect(crashlabStore.get(run.id).replayOf).toBe(', `      ${str(run.id)},`, '    )']
      : []),
    '  })',
    '})',
    '',
  ]
  return lines.join('\n')
}

/** A JSON value as a TypeScript literal, indented to sit at `indent` spaces. */
function literal(value: unknown, indent: number): string {
  const text = JSON.stringify(value, null, 2)
  return text.split('\n').join(`\n${' '.repeat(indent)}`)
}

/** A string as a single-quoted literal (the house style), or double-quoted when it holds a quote. */
function str(text: string): string {
  const json = JSON.stringify(text)
  return text.includes("'") ? json : `'${json.slice(1, -1).replaceAll('\\"', '"')}'`
}
