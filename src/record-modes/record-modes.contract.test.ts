import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { loadCassette } from '../case/cassette-load.ts'
import { writeCassette } from '../case/cassette-write.ts'
import type { Run } from '../case/schema/run.ts'
import { runInSession } from '../engine/context.ts'
import { Session } from '../engine/session.ts'
import { tool } from '../engine/tool.ts'
import type { SessionHooks, SessionMode } from '../engine/types.ts'
import { isCrashlabError } from '../errors.ts'
import { actionAfterRun, shouldWriteCassette } from './finish-rule.ts'
import { forkPolicy } from './fork-policy.ts'
import { missingCassetteError, RECORD_MISSING_COMMAND } from './missing-cassette.ts'
import { parseMode } from './parse-mode.ts'
import { planTest } from './plan-test.ts'
import { RECORD_MODES } from './record-mode-list.ts'
import { RECORD_MODE_STRATEGIES } from './registry.ts'
import type {
  CassetteAction,
  CassetteInputs,
  CommonSessionOptions,
  RecordMode,
  RecordModeStrategy,
  RecordPlan,
} from './types.ts'

// Every record mode runs the same contract, on real Sessions and cassette files: what it opens with and
// without a cassette on disk, that its plan's action and Session options agree, and what finishing a
// run that matched its recording, left it, stopped short of it or had none to follow does to the cassette.

/** A two-step agent: a pure lookup, then a refund (a side effect: it must never run at replay). */
let refunds: number[] = []
const lookup = tool(async (id: string) => ({ id, status: 'delivered' }), {
  name: 'lookup',
  sideEffects: false,
})
const refund = tool(
  async (amount: number) => {
    refunds.push(amount)
    return { ok: true, amount }
  },
  { name: 'refund', sideEffects: true },
)

type Agent = () => Promise<string>
const AGENTS = {
  /** Does what was recorded. */
  matched: async () => {
    await lookup('A17')
    await refund(49)
    return 'refunded'
  },
  /** Asks for another amount at the second step. */
  diverged: async () => {
    await lookup('A17')
    await refund(50)
    return 'refunded'
  },
  /** Stops after the first step: the recorded refund is left unused. */
  stoppedShort: async () => {
    await lookup('A17')
    return 'looked up'
  },
} satisfies Record<string, Agent>
type Scenario = keyof typeof AGENTS

/** What a finished test did with its cassette. */
interface Finished {
  action: CassetteAction
  written: boolean
  /** The crashlab error code `finish` threw, if any. */
  threw?: string
  /** Side-effect tool calls that really ran. */
  refunds: number
}

interface ModeContract {
  /** With a cassette on disk: the plan's action, its Session's mode and `onDivergence`. */
  withCassette: { action: CassetteAction; session: SessionMode; onDivergence: 'fail' | 'record' }
  /** Without one. */
  withoutCassette: { action: CassetteAction; session: SessionMode; cassetteMissing: boolean }
  /** With the cassette on disk, after each scenario. */
  finish: Record<Scenario, Finished>
  /** Without a cassette, after the full run. */
  finishWithout: Finished
}

const REPLAYED: ModeContract['finish'] = {
  matched: { action: 'replay', written: false, refunds: 0 },
  diverged: { action: 'replay', written: false, threw: 'E_DIVERGENCE', refunds: 0 },
  stoppedShort: { action: 'replay', written: false, threw: 'E_REPLAY_UNUSED', refunds: 0 },
}
const RECORDED: Finished = { action: 'record', written: true, refunds: 1 }

/** The documented meaning of each mode (docs/vitest.md, "Modes and switches"). */
const CONTRACTS: Record<RecordMode, ModeContract> = {
  replay: {
    withCassette: { action: 'replay', session: 'replay', onDivergence: 'fail' },
    withoutCassette: { action: 'replay', session: 'replay', cassetteMissing: true },
    finish: REPLAYED,
    // The first call diverges from the empty recording; the plugin reports it as E_CASSETTE_MISSING.
    finishWithout: { action: 'replay', written: false, threw: 'E_DIVERGENCE', refunds: 0 },
  },
  missing: {
    withCassette: { action: 'replay', session: 'replay', onDivergence: 'fail' },
    withoutCassette: { action: 'record', session: 'record', cassetteMissing: false },
    finish: REPLAYED,
    finishWithout: RECORDED,
  },
  all: {
    withCassette: { action: 'record', session: 'record', onDivergence: 'fail' },
    withoutCassette: { action: 'record', session: 'record', cassetteMissing: false },
    finish: { matched: RECORDED, diverged: RECORDED, stoppedShort: { ...RECORDED, refunds: 0 } },
    finishWithout: RECORDED,
  },
  diverged: {
    withCassette: { action: 'replay', session: 'replay', onDivergence: 'record' },
    withoutCassette: { action: 'record', session: 'record', cassetteMissing: false },
    finish: {
      matched: { action: 'replay', written: false, refunds: 0 },
      // Live from the divergence on: the refund that changed runs.
      diverged: RECORDED,
      stoppedShort: { action: 'record', written: true, refunds: 0 },
    },
    finishWithout: RECORDED,
  },
  off: {
    withCassette: { action: 'passthrough', session: 'record', onDivergence: 'fail' },
    withoutCassette: { action: 'passthrough', session: 'record', cassetteMissing: false },
    finish: {
      matched: { action: 'passthrough', written: false, refunds: 1 },
      diverged: { action: 'passthrough', written: false, refunds: 1 },
      stoppedShort: { action: 'passthrough', written: false, refunds: 0 },
    },
    finishWithout: { action: 'passthrough', written: false, refunds: 1 },
  },
}

let dir: string
let recordedFile: string
let recordedText: string
let caseNo = 0

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'crashlab-record-modes-'))
  recordedFile = join(dir, 'recorded.cassette.json')
  const session = new Session({ mode: 'record', name: 'refund-bot', label: 'setup' })
  const output = await runInSession(session, AGENTS.matched)
  writeCassette(recordedFile, await session.finish({ output }))
  recordedText = readFileSync(recordedFile, 'utf8')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))
beforeEach(() => {
  refunds = []
})

/** A test's cassette path in the temp folder: a copy of the recording, or nothing on disk. */
function cassette(onDisk: boolean): { inputs: CassetteInputs; loads: () => number } {
  const path = join(dir, `case-${++caseNo}.cassette.json`)
  if (onDisk) copyFileSync(recordedFile, path)
  let loads = 0
  const load = () => {
    loads++
    return loadCassette(path).run
  }
  return { inputs: { path, exists: onDisk, load }, loads: () => loads }
}

const onStep: NonNullable<SessionHooks['onStep']> = () => {}
// A replay failure the agent's error follows from also warns about the run's other errors: kept quiet.
const common: CommonSessionOptions = {
  label: 'refund > clean refund',
  hooks: { onStep },
  onWarning: () => {},
}

/** Runs the agent in the plan's Session and ends the test as the plugin does. */
async function finishTest(plan: RecordPlan, agent: Agent): Promise<Finished & { run: Run }> {
  const session = new Session(plan.session)
  let result: { output?: unknown; error?: unknown }
  try {
    result = { output: await runInSession(session, agent) }
  } catch (error) {
    result = { error }
  }
  let threw: string | undefined
  try {
    await session.finish(result)
  } catch (error) {
    threw = isCrashlabError(error) ? error.code : String(error)
  }
  const action = actionAfterRun(plan.action, session)
  const written = shouldWriteCassette(action, session.run)
  if (written && plan.cassettePath) writeCassette(plan.cassettePath, session.run)
  return { action, written, ...(threw && { threw }), refunds: refunds.length, run: session.run }
}

/** What a plan's action says about its Session options, whatever the mode. */
function expectAgreement(plan: RecordPlan): void {
  const s = plan.session
  expect(s.label).toBe(common.label)
  expect(s.hooks?.onStep).toBe(onStep)
  if (plan.action === 'record') {
    expect(s).toMatchObject({ mode: 'record', cassettePath: plan.cassettePath })
    expect(s.recorded).toBeUndefined()
  } else if (plan.action === 'replay') {
    expect(s).toMatchObject({ mode: 'replay', cassettePath: plan.cassettePath })
    expect(s.recorded).toBeDefined()
  } else {
    // Passed over: captured live in memory, no cassette read, none named.
    expect(s.mode).toBe('record')
    expect(s.recorded).toBeUndefined()
    expect(s.cassettePath).toBeUndefined()
  }
  if (plan.cassetteMissing) {
    expect(plan.action).toBe('replay')
    expect(s.recorded?.steps).toEqual([])
  }
  expect(s.forkAt).toBeUndefined()
  expect(() => new Session(s)).not.toThrow()
}

const strategies = Object.entries(RECORD_MODE_STRATEGIES) as Array<[RecordMode, RecordModeStrategy]>

describe('the record modes', () => {
  it('have one strategy each, under the names the switches accept', () => {
    expect(strategies.map(([mode]) => mode).sort()).toEqual([...RECORD_MODES].sort())
    for (const mode of RECORD_MODES) expect(parseMode(mode, 'test')).toBe(mode)
  })
})

describe.each(strategies)('record mode %s', (mode, strategy) => {
  const contract = CONTRACTS[mode]

  it('is named after its mode and says what it does', () => {
    expect(strategy.mode).toBe(mode)
    expect(strategy.summary.length).toBeGreaterThan(10)
  })

  it('opens what its contract says with a cassette on disk, reading it only to replay it', () => {
    const { inputs, loads } = cassette(true)
    const plan = strategy.open(inputs, common)
    const expected = contract.withCassette
    expect({
      action: plan.action,
      session: plan.session.mode,
      cassetteMissing: plan.cassetteMissing,
    }).toEqual({
      action: expected.action,
      session: expected.session,
      cassetteMissing: false,
    })
    expect(plan.session.onDivergence ?? 'fail').toBe(expected.onDivergence)
    expect(plan.cassettePath).toBe(inputs.path)
    expect(loads()).toBe(plan.action === 'replay' ? 1 : 0)
    expectAgreement(plan)
  })

  it('opens what its contract says without a cassette, never reading one', () => {
    const { inputs, loads } = cassette(false)
    const plan = strategy.open(inputs, common)
    expect({
      action: plan.action,
      session: plan.session.mode,
      cassetteMissing: plan.cassetteMissing,
    }).toEqual(contract.withoutCassette)
    expect(plan.session.onDivergence ?? 'fail').toBe('fail')
    expect(loads()).toBe(0)
    expectAgreement(plan)
  })

  it.each(Object.keys(AGENTS) as Scenario[])('finishes a run that %s as documented', async (scenario) => {
    const { inputs } = cassette(true)
    const done = await finishTest(strategy.open(inputs, common), AGENTS[scenario])
    const { run, ...finished } = done
    expect(finished).toEqual(contract.finish[scenario])
    const text = readFileSync(inputs.path as string, 'utf8')
    if (!finished.written) {
      // Untouched, byte for byte.
      expect(text).toBe(recordedText)
      return
    }
    const written = loadCassette(inputs.path as string).run
    expect(written.steps.map((s) => (s.type === 'tool' ? [s.name, s.args] : s.type))).toEqual(
      run.steps.map((s) => (s.type === 'tool' ? [s.name, s.args] : s.type)),
    )
    if (contract.withCassette.onDivergence === 'record') {
      // A re-recording from a divergence keeps the recording's run and its replayed prefix.
      const recorded = loadCassette(recordedFile).run
      expect(written.id).toBe(recorded.id)
      expect(written.steps[0]).toEqual(recorded.steps[0])
    }
  })

  it('finishes a test without a cassette as documented', async () => {
    const { inputs } = cassette(false)
    const plan = strategy.open(inputs, common)
    const { run: _run, ...finished } = await finishTest(plan, AGENTS.matched)
    expect(finished).toEqual(contract.finishWithout)
    expect(loadedOrMissing(inputs.path as string)).toBe(finished.written ? 'written' : 'missing')
    if (plan.cassetteMissing) {
      const error = missingCassetteError({ cassettePath: inputs.path as string, mode }, 'refund')
      expect(error.code).toBe('E_CASSETTE_MISSING')
      expect(error.message).toContain(RECORD_MISSING_COMMAND)
    }
  })

  it('writes nothing for a test that calls nothing, with or without a cassette', async () => {
    for (const onDisk of [true, false]) {
      const { inputs } = cassette(onDisk)
      const { run, ...finished } = await finishTest(strategy.open(inputs, common), async () => 'no calls')
      expect(run.steps).toEqual([])
      expect(finished.written).toBe(false)
      expect(loadedOrMissing(inputs.path as string)).toBe(onDisk ? 'written' : 'missing')
    }
  })
})

function loadedOrMissing(path: string): 'written' | 'missing' {
  try {
    readFileSync(path)
    return 'written'
  } catch {
    return 'missing'
  }
}

describe('the fork policy (crashlab replay / crashlab fork of one test)', () => {
  const onRequest: NonNullable<SessionHooks['onRequest']> = () => undefined

  it('replays the given run instead of the cassette, and writes nothing when it matched', async () => {
    const { inputs } = cassette(true)
    const run = loadCassette(inputs.path as string).run
    const plan = forkPolicy.open({ run, path: inputs.path as string }, common)
    expect(plan).toMatchObject({ action: 'replay', cassettePath: inputs.path, cassetteMissing: false })
    expect(plan.session).toMatchObject({ mode: 'replay', recorded: run, cassettePath: inputs.path })
    expect(plan.session.forkAt).toBeUndefined()
    const { run: _run, ...finished } = await finishTest(plan, AGENTS.matched)
    expect(finished).toEqual({ action: 'replay', written: false, refunds: 0 })
  })

  it('forks at a step with the request hook: the prefix replays, the rest is recorded live', async () => {
    const { inputs } = cassette(true)
    const run = loadCassette(inputs.path as string).run
    const plan = forkPolicy.open({ run, path: inputs.path as string, fork: { at: 1, onRequest } }, common)
    expect(plan.session.forkAt).toBe(1)
    expect(plan.session.hooks).toEqual({ onStep, onRequest })
    // Live from step 1, and written to the given run's file; the recorded refund is served, not run again.
    const { run: forked, ...finished } = await finishTest(plan, AGENTS.matched)
    expect(finished).toEqual({ action: 'record', written: true, refunds: 0 })
    expect(forked.links).toMatchObject({ forkedFrom: run.id, forkStep: 1 })
  })
})

describe('planTest: the decision for one test', () => {
  const override = (): { count: () => number; read: () => { run: Run; path: string } } => {
    let count = 0
    return {
      count: () => count,
      read: () => {
        count++
        return { run: loadCassette(recordedFile).run, path: recordedFile }
      },
    }
  }

  it('runs off and live() tests live, without reading the override', () => {
    for (const [mode, live] of [
      ['off', false],
      ['replay', true],
    ] as const) {
      const o = override()
      const plan = planTest({ mode, live, override: o.read, cassette: cassette(true).inputs, common })
      expect(plan.action).toBe('passthrough')
      expect(o.count()).toBe(0)
    }
  })

  it('lets the override win over every other mode, and otherwise follows the mode', () => {
    for (const mode of RECORD_MODES.filter((m) => m !== 'off')) {
      const o = override()
      const { inputs } = cassette(false)
      const plan = planTest({ mode, override: o.read, cassette: inputs, common })
      expect(plan).toMatchObject({ action: 'replay', cassettePath: recordedFile })
      expect(o.count()).toBe(1)
      const own = planTest({ mode, override: () => undefined, cassette: inputs, common })
      const expected = RECORD_MODE_STRATEGIES[mode].open(inputs, common)
      expect([own.action, own.session.mode, own.cassetteMissing, own.cassettePath]).toEqual([
        expected.action,
        expected.session.mode,
        expected.cassetteMissing,
        inputs.path,
      ])
    }
  })
})
