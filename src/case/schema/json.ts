import { lazySchema, zod } from '../../lazy-zod.ts'

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }
export type JsonObject = { [key: string]: JsonValue }

/**
 * Free JSON (wire bodies, tool args, user metadata). Loading checks it only for presence: what reaches
 * the schema came out of `JSON.parse`, so it is JSON by construction, and walking multi-megabyte
 * bodies a second time would double the load cost. Writes check it again in the canonical serializer,
 * which refuses what JSON cannot carry.
 */
export const JsonSchema = lazySchema(() =>
  zod.custom<JsonValue>((v) => v !== undefined, { message: 'expected a JSON value' }),
)

export const JsonObjectSchema = lazySchema(() =>
  zod.custom<JsonObject>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), {
    message: 'expected a JSON object',
  }),
)

/** An ISO 8601 / RFC 3339 instant with a zone, as `new Date().toISOString()` writes it. */
export const InstantSchema = lazySchema(() => zod.iso.datetime({ offset: true }))
