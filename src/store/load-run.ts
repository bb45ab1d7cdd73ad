import type { Run } from '../case/schema/run.ts'
import { openStore } from './open-store.ts'
import type { OpenStoreOptions } from './types.ts'

/**
 * One stored run, by id, unique id prefix, or `last` (the newest): opens the store, loads the run's
 * cassette, and closes the store. `E_RUN_NOT_FOUND` names the ref and points at `crashlab ls`; a prefix
 * shared by several runs is `E_RUN_AMBIGUOUS`, listing them.
 *
 * @example
 * import { load } from 'crashlab'
 *
 * const run = await load('last')
 * console.log(run.status, run.steps.length)
 * const same = await load(run.id.slice(0, 8), { dir: '.crashlab' })
 */
export async function load(ref: string, options: OpenStoreOptions = {}): Promise<Run> {
  const store = await openStore(options)
  try {
    return store.load(ref)
  } finally {
    store.close()
  }
}
