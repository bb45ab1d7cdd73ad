/**
 * The words the wrong-tool rule compares: stems of a tool's name and description, of the user's request,
 * of the system prompt and of the failed checks, with verbs grouped into families of near-synonyms so
 * that "remove the meeting" reads as asking for `delete_event`. Plain English only: a request in
 * another language matches nothing, and the rule then stays silent.
 */

/** Verbs that only read: a tool named after one of them looks something up. */
const READ_VERBS = [
  'get',
  'list',
  'search',
  'find',
  'lookup',
  'look',
  'fetch',
  'check',
  'read',
  'view',
  'show',
  'query',
  'retrieve',
  'describe',
  'count',
  'inspect',
  'browse',
  'see',
  'track',
  'verify',
  'validate',
  'load',
  'preview',
  'estimate',
  'calculate',
  'compute',
  'explain',
  'summarize',
]

/**
 * Verbs that change something, in families of near-synonyms. Wide on purpose: a family that also
 * covers the chosen tool's verb makes the rule keep quiet, the safe side. A verb may be in two families.
 */
const WRITE_FAMILIES: readonly string[][] = [
  // biome-ignore format: a list of words
  ['create', 'add', 'make', 'new', 'open', 'insert', 'register', 'post', 'put', 'generate', 'book', 'schedule',
    'reserve', 'setup', 'arrange', 'organize', 'plan', 'place', 'submit', 'file', 'lodge', 'apply', 'log',
    'record', 'save', 'write', 'enter'],
  // biome-ignore format: a list of words
  ['update', 'change', 'modify', 'edit', 'set', 'amend', 'adjust', 'correct', 'fix', 'patch', 'rename', 'move',
    'reschedule', 'rebook', 'reassign', 'assign', 'transfer', 'switch', 'upgrade', 'downgrade', 'replace',
    'swap', 'convert', 'triage', 'prioritize', 'escalate', 'mark', 'tag', 'label', 'resolve', 'close', 'reconcile'],
  // biome-ignore format: a list of words
  ['delete', 'remove', 'erase', 'drop', 'purge', 'clear', 'discard', 'cancel', 'void', 'terminate', 'revoke',
    'abort', 'unsubscribe', 'archive', 'close', 'deactivate', 'disable', 'freeze', 'block', 'suspend', 'lock',
    'withdraw', 'end', 'stop', 'kill'],
  // biome-ignore format: a list of words
  ['refund', 'reimburse', 'repay', 'pay', 'payment', 'charge', 'bill', 'transfer', 'wire', 'deposit', 'withdraw',
    'credit', 'debit', 'buy', 'purchase', 'sell', 'send', 'remit'],
  // biome-ignore format: a list of words
  ['send', 'email', 'mail', 'notify', 'message', 'invite', 'forward', 'share', 'text', 'reply', 'respond',
    'contact', 'call', 'alert', 'remind', 'publish', 'announce', 'dispatch', 'deliver', 'ship'],
  // biome-ignore format: a list of words
  ['restore', 'unfreeze', 'unlock', 'unblock', 'enable', 'activate', 'reopen', 'renew', 'refill', 'restock',
    'replenish', 'reorder', 'resume', 'retry', 'extend', 'top'],
  ['pause', 'hold', 'suspend', 'snooze', 'defer', 'postpone', 'delay', 'freeze'],
  ['approve', 'accept', 'confirm', 'grant', 'authorize', 'sign', 'allow'],
  ['reject', 'deny', 'decline', 'refuse', 'dismiss'],
]

// biome-ignore format: a list of words
const STOP = new Set(['a', 'an', 'the', 'of', 'to', 'for', 'on', 'in', 'by', 'with', 'and', 'or', 'its', 'it', 'their',
  'them', 'they', 'any', 'every', 'each', 'that', 'this', 'these', 'those', 'is', 'are', 'be', 'was', 'were', 'been',
  'has', 'have', 'had', 'from', 'as', 'at', 'into', 'onto', 'out', 'yet', 'all', 'per', 'one', 'your', 'my', 'me',
  'i', 'you', 'we', 'our', 'us', 'please', 'can', 'could', 'would', 'should', 'will', 'do', 'does', 'did', 'if',
  'than', 'then', 'so', 'such', 'more', 'less', 'only', 'also', 'via', 'eg', 'id', 'ids', 'what', 'which', 'who',
  'when', 'where', 'how', 'there', 'here', 'about', 'after', 'before', 'up', 'just', 'some', 'returns', 'given',
  'use', 'using', 'tool', 'function', 'when', 'him', 'her', 'his', 'she', 'he', 'am', 'im', 'hi', 'hello', 'thanks',
  'thank', 'want', 'need', 'like', 'now', 'today', 'asap', 'other', 'another', 'same', 'new'])

// biome-ignore format: a list of words
const NEGATORS = new Set(['not', 'no', 'never', 'without', 'cannot', 'nor', 'neither', 'none', 'nothing', 'unable',
  'failed'])
// What follows one of these in its clause is not asked for yet: "I may want to renew it", "if it fails".
const HEDGES = new Set(['might', 'maybe', 'perhaps', 'if', 'whether', 'unless', 'later'])
// `may` hedges before these only: "I may want to", not "from May 3".
const MAY_BEFORE = new Set(['want', 'need', 'like', 'have', 'be', 'also', 'still', 'wish', 'decide'])
// A word followed by one of these is negated too ("refunds nothing").
const NEGATED_BEFORE = new Set(['nothing', 'none'])
// A participle after one of these (within three words) is asked for: "I want it refunded", "should be moved".
const REQUEST_CUES = new Set([
  'want',
  'wants',
  'need',
  'needs',
  'like',
  'get',
  'please',
  'must',
  'should',
  'have',
  'be',
])
// Directly before a participle, these make it a state: "was cancelled", "got cancelled", "has moved".
const STATE_WORDS = new Set(['was', 'were', 'is', 'are', 'been', 'got', 'gets', 'has', 'had', 'have', 's'])

const IRREGULAR: Record<string, string> = {
  sent: 'send',
  paid: 'pay',
  made: 'make',
  got: 'get',
  gotten: 'get',
  bought: 'buy',
  sold: 'sell',
  took: 'take',
  taken: 'take',
  gave: 'give',
  given: 'give',
  found: 'find',
  held: 'hold',
  kept: 'keep',
  told: 'tell',
  wrote: 'write',
  written: 'write',
  chose: 'choose',
  chosen: 'choose',
  lost: 'lose',
  withdrew: 'withdraw',
  withdrawn: 'withdraw',
  froze: 'freeze',
  frozen: 'freeze',
  spent: 'spend',
  saw: 'see',
  seen: 'see',
  done: 'do',
  did: 'do',
  shown: 'show',
  set: 'set',
  put: 'put',
  shut: 'shut',
}

/**
 * A word's stem: lower case, irregular past forms to their verb, common suffixes cut, a final `e` and a
 * doubled last letter dropped. Not a linguist's stem, a consistent one: `invite`, `invites`,
 * `invitation` and `invited` all give `invit`; `cancelled`, `cancellation` and `cancel` give `cancel`.
 *
 * @example
 * stem('Refunded') // 'refund'
 */
export function stem(word: string): string {
  let w = word.toLowerCase()
  w = IRREGULAR[w] ?? w
  if (w.length > 4 && /(?:ies|ied)$/.test(w)) w = `${w.slice(0, -3)}y`
  else if (w.length > 7 && w.endsWith('ations')) w = w.slice(0, -6)
  else if (w.length > 6 && w.endsWith('ation')) w = w.slice(0, -5)
  else if (w.length > 6 && w.endsWith('ments')) w = w.slice(0, -5)
  else if (w.length > 5 && w.endsWith('ment')) w = w.slice(0, -4)
  else if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3)
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2)
  else if (w.length > 4 && /(?:s|x|z|ch|sh)es$/.test(w)) w = w.slice(0, -2)
  else if (w.length > 3 && w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1)
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1)
  if (w.length > 2 && w.at(-1) === w.at(-2)) w = w.slice(0, -1)
  return w
}

const READ_STEMS = new Set(READ_VERBS.map(stem))
const FAMILIES = WRITE_FAMILIES.map((f) => new Set(f.map(stem)))
const STOP_STEMS = new Set([...STOP].map(stem))

/** Whether a stem is a verb that only reads. */
export const isReadVerb = (s: string): boolean => READ_STEMS.has(s)
/** Whether a stem is a verb that changes something. */
export const isWriteVerb = (s: string): boolean => FAMILIES.some((f) => f.has(s))

/** Whether `text` has the stem or, for a verb that changes something, one of its family. */
export function mentions(text: ReadonlySet<string>, s: string): boolean {
  if (text.has(s)) return true
  return FAMILIES.some((f) => f.has(s) && [...f].some((v) => text.has(v)))
}

/** Whether any stem of `text` is a verb that changes something. */
export const asksToChange = (text: ReadonlySet<string>): boolean => [...text].some(isWriteVerb)

/** The words of an identifier or a text, lower case: `issueRefund`, `issue_refund` → issue, refund. */
export function wordsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/n't\b/gi, ' not')
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((w) => w.length > 1)
}

export interface StemOptions {
  /**
   * Keep a past participle only when it is asked for (`want it refunded`), not when it says what
   * happened (`my flight was cancelled`, `cancelled flight`): for requests and prompts.
   */
  asked?: boolean
  /** Drop what is negated (`do not cancel`, `refunds nothing`): for descriptions, requests and prompts. */
  negation?: boolean
}

/**
 * The stems of a text's content words, stop words left out, clause by clause. With `negation`, up to
 * three words after `not`, `no`, `never`, `without`, … (to the end of the clause) and a word before
 * `nothing` are left out; with `asked`, so is a past participle that says what happened, and the rest of
 * a clause after `may`, `if`, `perhaps`, … (what is not asked for yet).
 *
 * @example
 * stemsOf('Do not cancel bookings. Rebook the passenger.', { negation: true }) // Set { 'rebook', 'passenger' }
 */
export function stemsOf(text: string, options: StemOptions = {}): Set<string> {
  const out = new Set<string>()
  for (const clause of text.split(/[.,;:!?()[\]{}"\n]+/)) {
    const words = wordsOf(clause)
    let negated = 0
    let hedged = false
    words.forEach((word, i) => {
      if (options.asked && (HEDGES.has(word) || (word === 'may' && MAY_BEFORE.has(words[i + 1] ?? ''))))
        hedged = true
      if (hedged) return
      if (options.negation && NEGATORS.has(word)) {
        negated = 3
        return
      }
      const skip = options.negation && (negated > 0 || NEGATED_BEFORE.has(words[i + 1] ?? ''))
      if (negated > 0) negated--
      if (skip || STOP.has(word)) return
      if (options.asked && isPast(word) && !isAsked(words, i)) return
      const s = stem(word)
      if (!STOP_STEMS.has(s)) out.add(s)
    })
  }
  return out
}

/** Whether a text says something did not happen: `no refund was issued`, `booking-not-cancelled`. */
export const isNegative = (text: string): boolean =>
  wordsOf(text).some((w) => NEGATORS.has(w) || w === 'missing')

function isPast(word: string): boolean {
  return (word.length > 4 && word.endsWith('ed')) || (word in IRREGULAR && IRREGULAR[word] !== word)
}

function isAsked(words: readonly string[], i: number): boolean {
  if (STATE_WORDS.has(words[i - 1] ?? '')) return false
  return words.slice(Math.max(0, i - 3), i).some((w) => REQUEST_CUES.has(w))
}
