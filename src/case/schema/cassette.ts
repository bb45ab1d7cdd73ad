import type { z } from 'zod'
import { lazySchema, zod } from '../../lazy-zod.ts'
import { RunSchema } from './run.ts'

export const CASSETTE_FORMAT = 'crashlab.cassette'
/** The cassette format version this crashlab writes. Older versions are migrated on load; newer are refused. */
export const CASSETTE_VERSION = 1

export const CreatorSchema = lazySchema(() =>
  zod.strictObject({ name: zod.literal('crashlab'), version: zod.string() }),
)

export const CassetteSchema = lazySchema(() =>
  zod.strictObject({
    format: zod.literal(CASSETTE_FORMAT),
    version: zod.literal(CASSETTE_VERSION),
    creator: CreatorSchema,
    run: RunSchema,
    /** The SHA-256 of the file without this field, as written (src/case/cassette-seal.ts). */
    seal: zod
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/)
      .optional(),
  }),
)

export type Creator = z.infer<typeof CreatorSchema>
export type Cassette = z.infer<typeof CassetteSchema>
