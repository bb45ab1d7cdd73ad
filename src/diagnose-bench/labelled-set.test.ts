import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isCrashlabError } from '../errors.ts'
import { loadLabelledSet, scoreLabelledSet } from './labelled-set.ts'

const SET = resolve(import.meta.dirname, '..', '..', 'bench', 'diagnoser')

describe('the labelled evaluation set (bench/diagnoser)', () => {
  const set = loadLabelledSet(SET)

  it('has at least 30 runs, from both demo agents, with every label the faults give', () => {
    expect(set.length).toBeGreaterThanOrEqual(30)
    expect(new Set(set.map((r) => r.run.name))).toEqual(new Set(['refund-bot', 'flight-rebooker']))
    expect(new Set(set.map((r) => r.entry.label))).toEqual(
      new Set([
        'NO_FAILURE',
        'TASK_SPEC_VIOLATION',
        'EXTERNAL_FAILURE',
        'TOOL_ERROR_MISHANDLED',
        'WRONG_TOOL_SELECTION',
        'BAD_TOOL_ARGUMENTS',
      ]),
    )
  })

  it('labels every failure at an existing step, and no step for a clean run', () => {
    for (const { entry, run } of set) {
      if (entry.label === 'NO_FAILURE') {
        expect(entry.failingStep, entry.file).toBeNull()
        continue
      }
      expect(entry.failingStep, entry.file).not.toBeNull()
      for (const step of [entry.failingStep!, ...entry.alsoAccept])
        expect(run.steps[step], entry.file).toBeDefined()
      expect(entry.note.length, entry.file).toBeGreaterThan(10)
    }
  })

  it('scores the heuristic on it', () => {
    const score = scoreLabelledSet(set)
    expect(score.label.n).toBe(set.length)
    expect(score.label.hits).toBeLessThanOrEqual(score.label.n)
    expect(score.label.lower).toBeLessThanOrEqual(score.label.rate!)
    const confused = Object.values(score.confusion).reduce(
      (n, row) => n + Object.values(row ?? {}).reduce((a, b) => a + b, 0),
      0,
    )
    expect(confused).toBe(set.length)
  })
})

it('rejects a label at a step the run does not have', () => {
  const dir = mkdtempSync(join(tmpdir(), 'crashlab-labels-'))
  try {
    mkdirSync(join(dir, 'runs'))
    cpSync(join(SET, 'runs', 'run-01.cassette.json'), join(dir, 'runs', 'a.cassette.json'))
    const labels = (step: number) => ({
      format: 'crashlab-diagnoser-labels',
      version: 1,
      runs: [
        {
          file: 'runs/a.cassette.json',
          label: 'WRONG_TOOL_SELECTION',
          failingStep: step,
          alsoAccept: [],
          note: 'n',
        },
      ],
    })
    writeFileSync(join(dir, 'labels.json'), JSON.stringify(labels(99)))
    let thrown: unknown
    try {
      loadLabelledSet(dir)
    } catch (err) {
      thrown = err
    }
    expect(isCrashlabError(thrown, 'E_CONFIG_INVALID')).toBe(true)
    expect((thrown as Error).message).toContain('step 99')
    writeFileSync(join(dir, 'labels.json'), JSON.stringify(labels(1)))
    expect(loadLabelledSet(dir)).toHaveLength(1)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

it('a folder with no labels.json: a clear error naming the file and what the folder should hold', () => {
  const dir = mkdtempSync(join(tmpdir(), 'crashlab-labelled-empty-'))
  try {
    let thrown: unknown
    try {
      loadLabelledSet(dir)
    } catch (err) {
      thrown = err
    }
    expect(isCrashlabError(thrown, 'E_FILE_NOT_FOUND')).toBe(true)
    expect((thrown as Error).message).toContain(join(dir, 'labels.json'))
    expect((thrown as Error).message).toContain('labels.json')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
