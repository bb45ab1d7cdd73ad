import type { Run } from '../case/schema/run.ts'
import { stepText } from './step-text.ts'

/** One quote a diagnosis gives as evidence, and the step it cites. */
export interface EvidenceQuote {
  step: number
  quote: string
}

/**
 * Keeps the quotes that are really in the steps they cite: the quote, with runs of white space taken as
 * one space, must occur in `stepText(step)`. A model's paraphrase, a quote from another step, or a step
 * that does not exist is dropped.
 *
 * @example
 * verifyEvidence(run, [{ step: 3, quote: '"amount":490' }, { step: 3, quote: 'refunded too much' }])
 * // [{ step: 3, quote: '"amount":490' }]
 */
export function verifyEvidence(run: Run, evidence: readonly EvidenceQuote[]): EvidenceQuote[] {
  const texts = new Map<number, string>()
  const kept: EvidenceQuote[] = []
  for (const e of evidence) {
    if (!Number.isInteger(e.step) || typeof e.quote !== 'string') continue
    const step = run.steps[e.step]
    const quote = squash(e.quote)
    if (!step || quote.length < 3) continue
    let text = texts.get(e.step)
    if (text === undefined) {
      text = squash(stepText(step))
      texts.set(e.step, text)
    }
    if (text.includes(quote)) kept.push({ step: e.step, quote: e.quote.trim() })
  }
  return kept
}

function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}
