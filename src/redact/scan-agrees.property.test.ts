import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalStringify } from '../case/canonical-json.ts'
import { redactDocument } from './redact-document.ts'
import { scanDocument } from './scan-document.ts'
import { SECRET_CORPUS } from './test-corpus.ts'

/**
 * The scanner and the redactor share one matcher: whatever the scanner's rules (patterns, sensitive
 * keys, context rules; not the advisory entropy heuristic) flag in a written file, the redactor removed
 * before writing. Secrets are planted in the shapes that JSON held as text, escapes and encodings give
 * them, the way a tool-call `arguments` string, a tool result returned as a JSON string, a bodyText or
 * a query value carries them.
 */

const SECRETS = SECRET_CORPUS.filter((e) => e.secret === e.core || !e.secret.includes('\n'))

/** Surroundings that put a secret right after an escape, or inside a context rule, in JSON text. */
const SHAPES: Array<(secret: string) => string> = [
  (s) => JSON.stringify({ text: `line one\n${s}` }),
  (s) => JSON.stringify({ text: `"${s}"` }),
  (s) => JSON.stringify({ text: `C:\\dir\\${s}` }),
  (s) => JSON.stringify({ text: `\t${s}\r\n` }),
  (s) => JSON.stringify({ password: s }),
  (s) => JSON.stringify({ config: `aws_secret_access_key = ${s}` }),
  (s) => JSON.stringify({ args: JSON.stringify({ api_key: s, note: 'x' }) }),
  (s) => JSON.stringify(JSON.stringify({ nested: `a\n${s}` })),
  (s) => JSON.stringify([['authorization', s]]),
  (s) => JSON.stringify({ headers: [{ name: 'X-Api-Key', value: s }] }),
  (s) => JSON.stringify({ headers: [{ value: s, name: 'Cookie' }] }),
  (s) => `https://api.example.com/v1?q=hello%20${encodeURIComponent(s)}&x=1`,
  (s) => `https://api.example.com/v1?note=${encodeURIComponent(`see ${s} here`)}`,
  (s) => `grant_type=client_credentials&client_secret=${encodeURIComponent(s)}&scope=a%20b`,
  (s) => encodeURIComponent(JSON.stringify({ token: s })),
  (s) => `data: ${JSON.stringify({ delta: { arguments: JSON.stringify({ key: `\n${s}` }) } })}\n\n`,
]

const filler = fc.string({ unit: 'grapheme-ascii', maxLength: 12 }).map((s) => s.replace(/[\\%"]/g, ' '))

describe('the scanner and the redactor agree', () => {
  it('nothing the scanner flags survives the redactor (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SECRETS),
        fc.integer({ min: 0, max: SHAPES.length - 1 }),
        filler,
        filler,
        fc.constantFrom('bodyText', 'arguments', 'content', 'url', 'result'),
        (entry, shape, before, after, field) => {
          const planted = `${before} ${SHAPES[shape]!(entry.secret)} ${after}`
          const doc = { step: { [field]: planted } }
          const before1 = scanDocument(doc, { entropy: false })
          expect(before1.length).toBeGreaterThan(0)
          const redacted = redactDocument(doc).value
          expect(scanDocument(redacted, { entropy: false })).toEqual([])
        },
      ),
      { numRuns: 600 },
    )
  })

  it('removes the sensitive part in every shape, for every corpus entry', () => {
    const leaks: string[] = []
    for (const entry of SECRETS) {
      SHAPES.forEach((shape, i) => {
        const doc = { value: shape(entry.secret) }
        const written = canonicalStringify(redactDocument(doc).value)
        const core = entry.core
        const forms = [core, JSON.stringify(core).slice(1, -1), encodeURIComponent(core)]
        if (forms.some((f) => written.includes(f))) leaks.push(`${entry.id} in shape ${i}`)
      })
    }
    expect(leaks).toEqual([])
  })

  it('is idempotent: a second pass changes nothing', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SECRETS),
        fc.integer({ min: 0, max: SHAPES.length - 1 }),
        (entry, shape) => {
          const once = redactDocument({ v: SHAPES[shape]!(entry.secret) })
          const twice = redactDocument(once.value)
          expect(twice.value).toEqual(once.value)
          expect(twice.records).toEqual([])
        },
      ),
      { numRuns: 300 },
    )
  })
})
