import type { Run } from '../../../src/case/schema/run.ts'
import { rngFor } from './gen.ts'
import type { Location } from './locations.ts'
import { RunBuilder } from './run-builder.ts'
import type { SecretFormat } from './types.ts'

/** One planted instance: a fresh secret of `format` at `location`. */
export interface PlantedItem {
  format: string
  location: string
  /** `format@location`, the name a leak is reported under. */
  key: string
  text: string
  sensitive: string[]
}

/**
 * One run holding a fresh secret of every format at every location (each instance distinct, so a
 * leak found in the written bytes names its format and location), with the list of what was planted.
 */
export function plantCorpus(
  formats: readonly SecretFormat[],
  locations: readonly Location[],
  seed = 'main',
): { run: Run; items: PlantedItem[] } {
  const b = new RunBuilder()
  const items: PlantedItem[] = []
  let n = 0
  for (const location of locations) {
    for (const format of formats) {
      const planted = format.generate(
        rngFor('secret', seed, format.id, location.id),
        rngFor('shape', format.id),
      )
      location.plant(b, planted.text, `p${n++}`, rngFor('offset', seed, format.id, location.id))
      items.push({ format: format.id, location: location.id, key: `${format.id}@${location.id}`, ...planted })
    }
  }
  return { run: b.build(), items }
}
