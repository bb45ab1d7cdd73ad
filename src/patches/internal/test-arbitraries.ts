import fc from 'fast-check'
import type { JsonObject, JsonValue } from '../../case/schema/json.ts'
import type { LeafPatch, Patch } from '../patch-schema.ts'
import type { PatchScope } from '../text-edit-schema.ts'

/**
 * fast-check arbitraries of valid patches, for the round-trip tests (not shipped: `test-*` files are
 * left out of the build). Text includes newlines, quotes, YAML indicators and non-ASCII, the places a
 * serializer goes wrong.
 */
const text = fc.oneof(
  fc.string({ minLength: 1 }),
  fc.constantFrom(
    '- item',
    'key: value',
    '# not a comment',
    'yes',
    'null',
    '0x1F',
    'a\nb\n',
    ' lead',
    '日本語 😀',
  ),
)
const line = text.filter((s) => s.trim().length > 0)
const name = fc.stringMatching(/^[a-z_][a-z0-9_]{0,12}$/)
const json: fc.Arbitrary<JsonValue> = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)))
const object: fc.Arbitrary<JsonObject> = fc.dictionary(name, json, { maxKeys: 4 })

const scope: fc.Arbitrary<PatchScope> = fc
  .record(
    { agent: name, systemContains: text, fromStep: fc.nat(50), toStep: fc.nat(50) },
    { requiredKeys: [] },
  )
  .filter((w) => Object.keys(w).length > 0)
const when = fc.option(scope, { nil: undefined }).map((w) => (w ? { when: w } : {}))

const edit = fc.oneof(
  fc.record({ op: fc.constant('replace' as const), text }),
  fc.record({ op: fc.constantFrom('append' as const, 'prepend' as const), text }),
  fc.record({ op: fc.constant('insert' as const), text, after: line }),
  fc.record({ op: fc.constant('insert' as const), text, before: line }),
  fc.record({ op: fc.constant('replace_line' as const), line, text }),
  fc.record({ op: fc.constant('delete_line' as const), line }),
  fc.record({ op: fc.constant('substitute' as const), find: text, replace: fc.string(), all: fc.boolean() }),
)
const target = fc.oneof(
  fc.record({ index: fc.integer({ min: -5, max: 5 }) }),
  fc.record({ contains: text, role: fc.constantFrom('user' as const, 'assistant' as const) }),
)

/** Any single patch. */
export const leafPatch: fc.Arbitrary<LeafPatch> = fc.oneof(
  fc.tuple(edit, when).map(([e, w]) => ({ kind: 'system_prompt' as const, ...e, ...w })),
  fc.tuple(name, edit, when).map(([tool, e, w]) => ({ kind: 'tool_description' as const, tool, ...e, ...w })),
  fc
    .tuple(target, text, when)
    .map(([t, s, w]) => ({ kind: 'message' as const, op: 'replace' as const, ...t, text: s, ...w })),
  fc.tuple(target, when).map(([t, w]) => ({ kind: 'message' as const, op: 'delete' as const, ...t, ...w })),
  fc
    .record({
      role: fc.constantFrom('user' as const, 'assistant' as const),
      text,
      at: fc.integer({ min: -3, max: 9 }),
    })
    .map((r) => ({ kind: 'inject_message' as const, ...r })),
  fc.tuple(name, json).map(([tool, result]) => ({ kind: 'tool_result' as const, tool, result })),
  fc.tuple(name, text).map(([callId, error]) => ({ kind: 'tool_result' as const, callId, error, nth: 0 })),
  fc
    .record({ tool: name, op: fc.constantFrom('replace' as const, 'merge' as const), parameters: object })
    .map((r) => ({ kind: 'tool_schema' as const, ...r })),
  fc
    .record(
      {
        model: name,
        params: fc.record(
          {
            temperature: fc.option(fc.double({ min: 0, max: 2, noNaN: true }).map((n) => n + 0)),
            seed: fc.integer(),
            extra: object,
          },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: ['model'] },
    )
    .map((r) => ({ kind: 'model_params' as const, ...r })),
)

/** Any patch: a single one, or a composition of up to four. */
export const anyPatch: fc.Arbitrary<Patch> = fc.oneof(
  leafPatch,
  fc.array(leafPatch, { maxLength: 4 }).map((patches) => ({ kind: 'compose' as const, patches })),
)
