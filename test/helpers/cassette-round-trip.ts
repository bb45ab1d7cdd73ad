import { join } from 'node:path'
import { loadCassette, type Run, writeCassette } from '../../src/case/index.ts'
import { runInSession, Session } from '../../src/engine/index.ts'

/**
 * Records `agent` in a Session of its own, writes the run to `<dir>/<name>.cassette.json` and loads it
 * back, so a test replays exactly what reached the disk.
 */
export async function recordToCassette<T>(
  dir: string,
  name: string,
  agent: () => Promise<T>,
): Promise<{ output: T; run: Run }> {
  const path = join(dir, `${name}.cassette.json`)
  const session = new Session({ mode: 'record', name, cassettePath: path })
  const output = await runInSession(session, agent)
  writeCassette(path, await session.finish({ output: null }), { onWarning: () => {} })
  return { output, run: loadCassette(path).run }
}

/** Replays `agent` over `recorded`; a replay failure the agent saw as a network error is the one thrown. */
export async function replayFromCassette<T>(
  recorded: Run,
  agent: () => Promise<T>,
  label: string,
): Promise<T> {
  const session = new Session({ mode: 'replay', recorded, label })
  let output: T
  try {
    output = await runInSession(session, agent)
  } catch (error) {
    await session.finish({ output: null })
    throw error
  }
  await session.finish({ output: null })
  return output
}
