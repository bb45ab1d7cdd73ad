import { describe, expect, it } from 'vitest'
import { canonicalStringify } from '../case/canonical-json.ts'
import { DEFAULT_PATTERNS } from './internal/default-patterns.ts'
import { redactDocument } from './redact-document.ts'
import { scanDocument } from './scan-document.ts'
import { scanText } from './scan-text.ts'
import { FALSE_POSITIVE_FIELDS, plantSecrets, SECRET_CORPUS } from './test-corpus.ts'

/** The forms a secret takes in written JSON: as is, JSON-escaped once, and escaped twice (JSON in JSON). */
function forms(s: string): string[] {
  const once = JSON.stringify(s).slice(1, -1)
  return [s, once, JSON.stringify(once).slice(1, -1)]
}

describe('the secret corpus', () => {
  it('covers at least 25 formats, each with a distinct id', () => {
    expect(new Set(SECRET_CORPUS.map((e) => e.id)).size).toBe(SECRET_CORPUS.length)
    expect(new Set(SECRET_CORPUS.map((e) => e.rule)).size).toBeGreaterThanOrEqual(25)
  })

  it('names only rules that exist', () => {
    const ids = new Set([...DEFAULT_PATTERNS.map((p) => p.id), 'sensitive-key'])
    expect(SECRET_CORPUS.filter((e) => !ids.has(e.rule))).toEqual([])
  })

  it('plants the secret in every place it means to', () => {
    const { secret } = SECRET_CORPUS[0]!
    const text = JSON.stringify(plantSecrets(secret))
    // headers, URL, body (content, note, two nested), both bodyTexts, a chunk, tool args, key, error
    expect(text.split(secret).length - 1).toBeGreaterThanOrEqual(14)
  })
})

describe.each(SECRET_CORPUS)('$id', ({ secret, core, rule }) => {
  const doc = plantSecrets(secret)
  const before = canonicalStringify(doc)
  const result = redactDocument(doc)
  const written = canonicalStringify(result.value)

  it('is not in the redacted document, in any escaping', () => {
    for (const form of [...forms(secret), ...forms(core)]) expect(written).not.toContain(form)
  })

  it('leaves the false-positive fields and the input unchanged', () => {
    expect(result.value.run.usage).toEqual(FALSE_POSITIVE_FIELDS)
    const llm = result.value.run.steps[0] as { request: { wire: { body: object } } }
    expect(llm.request.wire.body).toMatchObject(FALSE_POSITIVE_FIELDS)
    expect(result.value.run).toMatchObject(FALSE_POSITIVE_FIELDS)
    expect(canonicalStringify(doc)).toBe(before)
    expect(result.partial).toBe(false)
  })

  it(`is found by the scanner in plain text as ${rule}`, () => {
    const findings = scanText(`log line: ${secret} (end)`)
    expect(findings.map((f) => f.rule)).toContain(rule)
    for (const f of findings) expect(f.excerpt).not.toContain(core)
  })

  it('leaves nothing for the scanner to find after redaction', () => {
    expect(scanDocument(result.value)).toEqual([])
    expect(scanDocument(doc).length).toBeGreaterThan(0)
  })
})
