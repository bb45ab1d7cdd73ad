import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { MatcherState } from 'vitest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toMatchAgentCase } from '../../matchers/to-match-agent-case.ts'
import { writeCassette } from '../../src/case/cassette-write.ts'
import { renderTextReport } from '../../src/report/render-text-report.ts'
import { writeHtmlReport } from '../../src/report/write-html-report.ts'
import { exportTest } from '../../src/rerun/export-test.ts'
import { LocalRunStore } from '../../src/store/run-store.ts'
import { runBinSync } from '../helpers/built-bin.ts'
import { MAIN_FORMATS } from './corpus/formats.ts'
import { rngFor } from './corpus/gen.ts'
import { LOCATIONS } from './corpus/locations.ts'
import { plantCorpus } from './corpus/plant-corpus.ts'
import { LeakIndex } from './leak-search.ts'
import { assembledTexts } from './streams.ts'

/**
 * End to end: one run holding a fresh secret of every main format at every location (streams split
 * at a sampled offset) goes through every writer crashlab has, and every byte each one wrote is
 * searched. There is no OTLP writer yet; when there is one, it belongs in WRITERS.
 */

const { run, items } = plantCorpus(MAIN_FORMATS, LOCATIONS, 'writers')
const index = new LeakIndex(items)
const dir = mkdtempSync(join(tmpdir(), 'crashlab-leak-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** What a writer wrote: file contents (plus the texts its streams assemble to, for JSON files). */
function written(...paths: string[]): string[] {
  const out: string[] = []
  for (const p of paths) {
    if (!existsSync(p)) continue
    const text = readFileSync(p, 'latin1').includes('\u0000')
      ? readFileSync(p, 'latin1')
      : readFileSync(p, 'utf8')
    out.push(text)
    for (const line of text.split('\n')) {
      try {
        out.push(...assembledTexts(JSON.parse(line)))
      } catch {}
    }
    try {
      out.push(...assembledTexts(JSON.parse(text)))
    } catch {}
  }
  return out
}

const store = new LocalRunStore(join(dir, 'store'))
const storeRun = { ...run, id: '01JH7Z0000REDACTC0RPVS0001' }

const WRITERS: Array<[string, () => string[]]> = [
  [
    'cassette (writeCassette)',
    () => {
      const path = join(dir, 'run.cassette.json')
      writeCassette(path, run, { onWarning: () => {} })
      return written(path)
    },
  ],
  [
    'store journal',
    () => {
      const journal = store.startJournal({
        id: storeRun.id,
        name: storeRun.name,
        input: storeRun.input,
        startedAt: storeRun.startedAt,
      })
      for (const step of storeRun.steps) journal.append(step)
      const text = written(journal.path)
      journal.finish(storeRun)
      return text
    },
  ],
  [
    'store index and cassette',
    () => {
      store.save(storeRun)
      const d = store.dir
      return written(join(d, 'index.db'), join(d, 'index.db-wal'), store.cassettePath(storeRun.id))
    },
  ],
  [
    'AgentCase baseline (toMatchAgentCase)',
    () => {
      const path = join(dir, 'baseline.agentcase')
      const state = {
        isNot: false,
        snapshotState: { snapshotUpdateState: 'all' },
        utils: { matcherHint: () => '' },
      }
      const result = toMatchAgentCase.call(state as unknown as MatcherState, run, { path })
      expect(result.pass).toBe(true)
      return written(path)
    },
  ],
  [
    'crashlab export (cassette and AgentCase)',
    () => {
      const a = join(dir, 'exported.cassette.json')
      const b = join(dir, 'exported.agentcase')
      exportThroughCli(a)
      exportThroughCli(b)
      return written(a, b)
    },
  ],
  [
    'crashlab export --format otlp --include-content (OTLP JSON traces)',
    () => {
      const out = join(dir, 'exported.otlp.json')
      exportThroughCli(out, '--format', 'otlp', '--include-content')
      return written(out)
    },
  ],
  [
    'export-test',
    () => {
      const r = exportTest(run, { dir: join(dir, 'exported-test'), storeDir: store.dir })
      return written(r.testPath, r.cassettePath)
    },
  ],
  ['text report', () => [renderTextReport(run, { color: false })]],
  [
    'HTML report',
    () => {
      const path = join(dir, 'report.html')
      writeHtmlReport(path, run)
      return written(path)
    },
  ],
]

/** `crashlab export` of the stored run to `out` through the built bin, with `flags`. */
function exportThroughCli(out: string, ...flags: string[]): void {
  store.save(storeRun)
  const r = runBinSync(
    dir,
    { CRASHLAB_DIR: store.dir },
    'export',
    storeRun.id,
    '-o',
    out,
    ...flags,
    '--dir',
    store.dir,
  )
  expect(r.code, r.stderr).toBe(0)
}

describe.each(WRITERS)('%s', (_name, write) => {
  let leaks: Map<string, unknown> = new Map()
  // Written once, before the formats are looked up: a writer that runs the built CLI takes its time on a
  // loaded machine, which is not one format's test's time.
  beforeAll(() => {
    leaks = index.search(write())
  }, 180_000)

  it.each(MAIN_FORMATS.map((f) => f.id))('%s leaks at no location', (format) => {
    const at = LOCATIONS.map((l) => l.id).filter((l) => leaks.has(`${format}@${l}`))
    expect(at, 'locations where it leaked').toEqual([])
  })
})

it('the writers test can fail: the unredacted run holds every planted secret', () => {
  const found = index.search([JSON.stringify(run), ...assembledTexts(run)])
  expect(found.size).toBe(items.length)
  expect(rngFor('x').next()).toBeGreaterThanOrEqual(0)
})
