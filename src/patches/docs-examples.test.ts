import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { CONVERSATION_MESSAGES } from '../providers/internal/test-conversation.ts'
import { applyPatch } from './apply-patch.ts'
import { parsePatch, serializePatch } from './parse-patch.ts'
import { isTestOnlyPatch } from './patch-kinds.ts'
import { renderPatchDiff } from './render-patch-diff.ts'

/** docs/patches.md shows patch files and a dry-run diff: they must be what the code reads and prints. */
const doc = readFileSync(fileURLToPath(new URL('../../docs/patches.md', import.meta.url)), 'utf8')
const blocks = (lang: string) =>
  [...doc.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1]!)

describe('docs/patches.md', () => {
  const yaml = blocks('yaml')

  it('shows an example of every kind', () => {
    const kinds = new Set(yaml.map((text) => parsePatch(text).kind))
    expect([...kinds].sort()).toEqual([
      'compose',
      'inject_message',
      'message',
      'model_params',
      'system_prompt',
      'tool_description',
      'tool_result',
      'tool_schema',
    ])
  })

  it.each(yaml.map((text, i) => [i, text] as const))('YAML example %i parses and round-trips', (_, text) => {
    const patch = parsePatch(text, 'docs/patches.md')
    expect(parsePatch(serializePatch(patch, 'yaml'))).toEqual(patch)
    expect(isTestOnlyPatch(patch)).toBe(patch.kind === 'tool_result')
  })

  it('prints the dry-run diff the code prints', () => {
    const request = {
      model: 'gpt-5-mini',
      system: [],
      messages: CONVERSATION_MESSAGES,
      tools: [],
      params: {},
    }
    const patch = parsePatch({ kind: 'tool_result', tool: 'get_order', error: 'upstream timeout' })
    expect(applyPatch(patch, request).changed).toBe(true)
    expect(blocks('text')[0]).toBe(`${renderPatchDiff(patch, request)}\n`)
  })
})
