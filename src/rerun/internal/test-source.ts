import type { Run, Verification } from '../../case/schema/run.ts'
import type { Patch } from '../../patches/patch-schema.ts'
import { EXPORTED_TAG } from '../exported-tag.ts'

interface SourceOptions {
  /** The cassette, relative to the test file (`./__cassettes__/…`). */
  cassette: string
  importFrom: string
  suite: string
  /** A verified fix: its passing patched fork, replayed with the patch re-applied, asserted passing. */
  fix?: {
    id: string
    /** The fork, as its cassette holds it. */
    run: Run
    /** The fork's cassette, relative to the test file. */
    cassette: string
    patch: Patch
    atStep: number
    verification: Verification
  }
}

/** The text of an exported regression test: run the agent again on the cassette, assert what the run had. */
export function exportedTestSource(run: Run, options: SourceOptions): string {
  const findings = run.findings.map(({ kind, severity, steps }) => ({ kind, severity, steps }))
  const kinds = [...new Set(run.findings.map((f) => f.kind))]
  const entry = run.entryPoint?.kind === 'module' ? `${run.entryPoint.module}#${run.entryPoint.export}` : ''
  const fix = options.fix
  // A faithful replay has status ok; its outcome is the run's, and fail for a run whose agent threw.
  const outcome = run.status === 'error' ? 'fail' : run.outcome
  const lines = [
    `// Exported by \`crashlab export-test ${run.id}${fix ? ` --fix ${fix.id}` : ''}\` from the run of ${run.name.replace(/\s+/g, ' ')} started ${run.startedAt}.`,
    `// A regression test: it runs the agent again (${entry}) against the run's cassette beside this file,`,
    '// offline and strictly (a call the run did not make fails it), and asserts the check results and findings',
    '// the run had: a change of the agent that makes it act otherwise fails it. Run it with `npx crashlab vitest --exported`',
    `// (or \`npx vitest --tags-filter=${EXPORTED_TAG}\`: the crashlab() plugin declares the tag).`,
    `import { crashlabReplay, crashlabStore } from ${str(options.importFrom)}`,
    "import { describe, expect, test } from 'vitest'",
    '',
    "const it = test.extend('crashlabStore', crashlabStore)",
    '',
    `describe(${str(options.suite)}, { tags: [${str(EXPORTED_TAG)}] }, () => {`,
    `  it(${str(`${run.name} run ${run.id}`)}, async ({ crashlabStore }) => {`,
    `    const run = await crashlabReplay(${str(options.cassette)}, { store: crashlabStore })`,
    "    expect(run.status).toBe('ok')",
    `    expect(run.outcome).toBe(${str(outcome)})`,
    `    expect(run.checks).toEqual(${literal(run.checks, 4)})`,
    `    expect(run.findings.map(({ kind, severity, steps }) => ({ kind, severity, steps }))).toEqual(${literal(findings, 4)})`,
    ...kinds.map((kind) => `    expect(run).toHaveFinding(${str(kind)})`),
    '    expect(crashlabStore.get(run.id).replayOf).toBe(',
    `      ${str(run.id)},`,
    '    )',
    '  })',
    ...(fix ? ['', ...fixTest(run, fix)] : []),
    '})',
    '',
  ]
  return lines.join('\n')
}

/**
 * The second test of a file exported with a fix: the fix's passing patched fork, replayed offline with
 * the patch applied again to every model request from the fork step (the requests then match the
 * patched ones the fork recorded), asserted passing.
 */
function fixTest(run: Run, fix: NonNullable<SourceOptions['fix']>): string[] {
  const v = fix.verification
  const control = v.control ? `, control ${v.control.passed}/${v.control.trials}` : ''
  return [
    `  // ${fix.id} was VERIFIED (patched ${v.patched.passed}/${v.patched.trials} passed${control}): this is`,
    `  // its patched fork ${fix.run.id}, replayed with the fix re-applied from step ${fix.atStep}.`,
    `  it(${str(`${run.name} run ${run.id} with ${fix.id} passes`)}, async ({ crashlabStore }) => {`,
    `    const run = await crashlabReplay(${str(fix.cassette)}, {`,
    '      store: crashlabStore,',
    `      patch: ${literal(fix.patch, 6)},`,
    `      atStep: ${fix.atStep},`,
    '    })',
    `    expect(run.status).toBe('ok')`,
    `    expect(run.outcome).toBe('pass')`,
    '    expect(run.checks.filter((c) => !c.passed)).toEqual([])',
    `    expect(run.checks).toEqual(${literal(fix.run.checks, 4)})`,
    '    expect(crashlabStore.get(run.id).replayOf).toBe(',
    `      ${str(fix.run.id)},`,
    '    )',
    '  })',
  ]
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
