import { z } from 'zod'
import { RunSchema } from './run.ts'

export const CASSETTE_FORMAT = 'crashlab.cassette'
/** The cassette format version this crashlab writes. Older versions are migrated on load; newer are refused. */
export const CASSETTE_VERSION = 1

export const CreatorSchema = z.strictObject({ name: z.literal('crashlab'), version: z.string() })

export const CassetteSchema = z.strictObject({
  format: z.literal(CASSETTE_FORMAT),
  version: z.literal(CASSETTE_VERSION),
  creator: CreatorSchema,
  run: RunSchema,
})

export type Creator = z.infer<typeof CreatorSchema>
export type Cassette = z.infer<typeof CassetteSchema>
