import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadCassette } from '../../case/cassette-load.ts'
import { writeCassette } from '../../case/cassette-write.ts'
import type { Run } from '../../case/schema/run.ts'
import { runInSession } from '../context.ts'
import { Session, type SessionOptions } from '../session.ts'

/** What a recording gave: the agent's output, the run in memory, and the run as its cassette loads back. */
export interface Recorded<T> {
  output: T
  run: Run
  loaded: Run
  /** The cassette file's text, to look for what must not be in it. */
  text: string
}

/** Runs `agent` in a recording Session and round-trips the run through a cassette in a temp folder. */
export async function recordRun<T>(
  agent: () => Promise<T>,
  options: Partial<SessionOptions> = {},
): Promise<Recorded<T>> {
  const session = new Session({ mode: 'record', name: 'engine-test', ...options })
  const output = await runInSession(session, agent)
  const run = await session.finish({ output: null })
  const dir = mkdtempSync(join(tmpdir(), 'crashlab-engine-'))
  try {
    const path = join(dir, 'run.cassette.json')
    writeCassette(path, run, { onWarning: () => {} })
    return { output, run, loaded: loadCassette(path).run, text: readFileSync(path, 'utf8') }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Runs `agent` in a replaying Session over `recorded`; `finish` is left to the caller. */
export async function replayRun<T>(
  recorded: Run,
  agent: () => Promise<T>,
  options: Partial<SessionOptions> = {},
): Promise<{ output: T; session: Session }> {
  const session = new Session({ mode: 'replay', recorded, label: 'engine test', ...options })
  const output = await runInSession(session, agent)
  return { output, session }
}

/**
 * Runs `agent` in a replaying Session over `recorded` where it is expected to fail: what the agent met
 * (its error as text, or `'no error'`) and what the Session's `finish` then threw.
 */
export async function replayFailure(
  recorded: Run,
  agent: () => Promise<unknown>,
): Promise<{ output: string; error: unknown }> {
  const { output, session } = await replayRun(recorded, () =>
    agent().then(
      () => 'no error',
      (error: unknown) => String(error),
    ),
  )
  const error = await session.finish({ output }).then(
    () => undefined,
    (e: unknown) => e,
  )
  return { output, error }
}
