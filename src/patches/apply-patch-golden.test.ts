import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { NormalizedRequest } from '../case/schema/normalized.ts'
import type { WireRequest } from '../case/schema/step.ts'
import { getAdapter } from '../providers/registry.ts'
import type { ProviderId } from '../providers/types.ts'
import { applyPatchToWire } from './apply-patch-to-wire.ts'
import { compose } from './define-patch.ts'
import type { LeafPatch } from './patch-schema.ts'

/**
 * The providers' golden transcripts (requests written from each API's documented examples: images,
 * reasoning, parallel calls, prompt caching, thoughts) patched and written back: what the adapter
 * writes must read back as the patched request.
 */
const GOLDEN = fileURLToPath(new URL('../providers/golden/', import.meta.url))
const APIS: ProviderId[] = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini']

const cases = APIS.flatMap((api) =>
  readdirSync(join(GOLDEN, api)).map((name): [string, ProviderId, WireRequest] => [
    `${api}/${name}`,
    api,
    JSON.parse(readFileSync(join(GOLDEN, api, name, 'request.json'), 'utf8')),
  ]),
)

/** One patch of each kind that fits any request: the tool patches name the request's first tool. */
function patchesFor(request: NormalizedRequest): LeafPatch[] {
  const tool = request.tools[0]?.name
  const patches: LeafPatch[] = [
    { kind: 'system_prompt', op: 'append', text: 'Answer in one sentence.' },
    { kind: 'inject_message', role: 'user', text: 'Please be brief.' },
    { kind: 'message', op: 'replace', role: 'user', index: 0, text: 'What changed?' },
    { kind: 'model_params', model: 'patched-model', params: { temperature: 0.3 } },
  ]
  if (tool) {
    patches.push(
      { kind: 'tool_description', tool, op: 'prepend', text: 'Patched.' },
      { kind: 'tool_schema', tool, op: 'merge', parameters: { description: 'patched' } },
    )
  }
  return patches
}

describe('applyPatchToWire on the golden transcripts', () => {
  it.each(cases)('%s: each patch, and all of them composed, read back as patched', (_, api, wire) => {
    const adapter = getAdapter(api)
    const patches = patchesFor(adapter.normalizeRequest(wire))
    for (const patch of [...patches, compose(...patches)]) {
      const out = applyPatchToWire(patch, wire, adapter)
      expect(out.changed, patch.kind).toBe(true)
      expect(adapter.normalizeRequest(out.wire), patch.kind).toEqual(out.request)
    }
  })
})
