/**
 * Leak rate and false-positive rate of the redaction rules on the HELD-OUT corpus (formats and
 * look-alikes no test asserts on and no rule was tuned on), next to the same figures on the main
 * corpus for comparison. A leak is a planted format × location instance of which any 12-character
 * substring of a sensitive part survives `redactDocument` (in the document or the text its streams
 * assemble to); a false positive is a look-alike that any rule touched.
 *
 *   node bench/redaction-held-out.ts
 */
import { redactDocument } from '../src/redact/index.ts'
import { MAIN_FORMATS } from '../test/redaction/corpus/formats.ts'
import { LOCATIONS } from '../test/redaction/corpus/locations.ts'
import { MAIN_LOOK_ALIKES } from '../test/redaction/corpus/look-alikes.ts'
import { plantCorpus } from '../test/redaction/corpus/plant-corpus.ts'
import { contentChunks } from '../test/redaction/corpus/run-builder.ts'
import type { LookAlike, SecretFormat } from '../test/redaction/corpus/types.ts'
import { HELD_OUT_FORMATS } from '../test/redaction/held-out/formats.ts'
import { HELD_OUT_LOOK_ALIKES } from '../test/redaction/held-out/look-alikes.ts'
import { LeakIndex } from '../test/redaction/leak-search.ts'
import { assembledTexts } from '../test/redaction/streams.ts'

interface Figures {
  formats: number
  trials: number
  leaked: number
  formatsLeaking: string[]
  lookAlikes: number
  redacted: string[]
}

function measure(formats: readonly SecretFormat[], lookAlikes: readonly LookAlike[]): Figures {
  const { run, items } = plantCorpus(formats, LOCATIONS, 'bench')
  const out = redactDocument(run).value
  const leaks = new LeakIndex(items).search([JSON.stringify(out), ...assembledTexts(out)])
  const formatsLeaking = [...new Set([...leaks.keys()].map((k) => k.split('@')[0]!))].sort()
  const redacted = lookAlikes
    .filter(({ text }) => {
      const doc = {
        note: `see ${text} here`,
        args: JSON.stringify({ query: text }),
        response: {
          wire: { chunks: contentChunks([`answer: ${text.slice(0, 5)}`, `${text.slice(5)} end`]) },
        },
      }
      return redactDocument(doc).records.length > 0
    })
    .map((l) => l.id)
  return {
    formats: formats.length,
    trials: items.length,
    leaked: leaks.size,
    formatsLeaking,
    lookAlikes: lookAlikes.length,
    redacted,
  }
}

const pct = (n: number, d: number) => `${((100 * n) / d).toFixed(1)} %`
const rows: Array<[string, Figures]> = [
  ['held-out', measure(HELD_OUT_FORMATS, HELD_OUT_LOOK_ALIKES)],
  ['main (for comparison)', measure(MAIN_FORMATS, MAIN_LOOK_ALIKES)],
]

console.log(`redaction on ${LOCATIONS.length} locations per format\n`)
console.log(
  `${'corpus'.padEnd(24)}${'formats'.padStart(8)}${'trials'.padStart(8)}${'leaked'.padStart(8)}${'leak rate'.padStart(11)}` +
    `${'formats leaking'.padStart(17)}${'look-alikes'.padStart(13)}${'redacted'.padStart(10)}${'FP rate'.padStart(9)}`,
)
for (const [name, f] of rows) {
  console.log(
    `${name.padEnd(24)}${String(f.formats).padStart(8)}${String(f.trials).padStart(8)}${String(f.leaked).padStart(8)}` +
      `${pct(f.leaked, f.trials).padStart(11)}${`${f.formatsLeaking.length} (${pct(f.formatsLeaking.length, f.formats)})`.padStart(17)}` +
      `${String(f.lookAlikes).padStart(13)}${String(f.redacted.length).padStart(10)}${pct(f.redacted.length, f.lookAlikes).padStart(9)}`,
  )
}
for (const [name, f] of rows) {
  console.log(`\n${name}: formats with a leak at some location: ${f.formatsLeaking.join(', ') || 'none'}`)
  console.log(`${name}: look-alikes redacted: ${f.redacted.join(', ') || 'none'}`)
}
