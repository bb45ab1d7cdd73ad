import { CAMEL, isElided, isIdentifier, isPlaceholder, isReference } from './validators.ts'

/**
 * Validators for the value of an assignment named like a secret (`DB_PASSWORD=…`, `api_key: …`,
 * `?client_secret=…`, `<password>…</password>`). Unlike a token format, such a value has no shape of
 * its own: these checks turn away what code, schemas and documentation put there instead of a secret.
 */

/** What a `password: …` line in documentation, a schema or code carries instead of a secret. */
const NOT_A_VALUE =
  /^(?:true|false|null|nil|none|undefined|string|str|bytes|number|int|integer|bool|boolean|object|any|text|varchar|char|secretstr|required|optional|hidden|masked|empty|unset|n\/a|tbd|todo|yes|no|on|off|password|passwd|secret|token|value|default|env|environment|string\[\]|str\]?|\[str\]?|await|async|new|function|typeof|require|import|return|yield|lambda|const|let|var|self|this|super|static|readonly|public|private|protected|buffer|arraybuffer|blob|u?int(?:8|16|32)(?:clamped)?array|bigint|symbol|date)$/i

/**
 * Whether the value of an assignment named like a secret (`DB_PASSWORD=…`, `api_key: …`,
 * `?client_secret=…`) is one. Any text is a possible password, so this only turns away what is
 * certainly not: placeholders and references (`${OPENAI_API_KEY}`, `$VAR`, `process.env.X`,
 * `os.environ[…]`, `<your key>`, `YOUR_API_KEY`, `****`), type names of a schema (`string`,
 * `Optional[str]`, `KeyObject`), keywords (`await`), paths to a key file, calls and expressions
 * (`z.string()`, `getenv("X")`, `opts?.apiKey`), and variable names (`api_key`, `userPassword`).
 *
 * @example
 * isAssignedSecret('hunter22!') // true
 * isAssignedSecret('${OPENAI_API_KEY}') // false
 * isAssignedSecret('process.env.OPENAI_API_KEY') // false
 */
export function isAssignedSecret(raw: string): boolean {
  // `OpenAI(api_key=api_key)`, `(key: string):`: trailing brackets and punctuation belong to the code
  // or the sentence around the value.
  // An ellipsis marks an elided example: `sk-...`, `phs_…`, `sk-abc...xyz`.
  if (raw.includes('…') || isElided(raw)) return false
  // An opening bracket at the very end opens what follows the value (`TOKEN=q8Zk…[` in a log line).
  const value = raw.replace(/[)\]},:;.!?[({]+$/, '')
  if (value.length < 3 || NOT_A_VALUE.test(value)) return false
  // A placeholder word inside a URL or encoded text names a host (`example.com`), not a stand-in.
  if (/:\/\/|%[0-9A-Fa-f]{2}/.test(value) ? isReference(value) : isPlaceholder(value)) return false
  // A path to a key file, not the key: `/run/secrets/db`, `~/.ssh/id_ed25519`, `C:\keys\a.pem`.
  if (/^(?:~?\/|\.{1,2}\/|[A-Za-z]:\\)[\w.\-/\\]*$/.test(value) && !hasRandomSegment(value)) return false
  // A call or an expression: `z.string()`, `getenv("X")`, `Optional[str]`, `config.db.password`,
  // `opts?.apiKey`, `(await …`.
  if (/^[([{!]|^urn:/.test(value) || /^[_$][A-Za-z]+$/.test(value)) return false
  // Optional chaining when what stands before the first `?.` reads as a name in code (`opts?.apiKey`,
  // `ctx?.env?.API_KEY`, `config.auth?.token`): a token with code right after it (`q8Zk…)?.trim()`,
  // `q8Zk…]?.x`) is still a token, whatever the code around it holds.
  const chained = /^[A-Za-z_$][\w$]*(?:\.[\w$]+)*(?=\?\.)/.exec(value)?.[0]
  if (chained?.split('.').every((name) => /^[a-z_$]{1,6}$/.test(name) || isCodePath(name))) return false
  const path = /^[A-Za-z_$][\w$]*(?:\.[\w$]+)*(?=[([]|$)/.exec(value)?.[0]
  if (path !== undefined && /[.([]/.test(value)) {
    // A call or an index only when what stands before the bracket reads as a name in code: a random
    // token followed by a bracket (`TOKEN=q8Zk…(` in a log line) is still a token.
    if (/[([]/.test(value) ? isCodePath(path) : !/\d/.test(value)) return false
  }
  // A variable or a type (`keyVar`, `NonSharedBuffer`), a command-line flag after `password=` in
  // prose (`-style`), a PEM header (the private-key rule decides whether key material follows).
  if (CAMEL.test(value) || isIdentifier(value) || /^-[a-z]+$/.test(value) || value.startsWith('-----')) {
    return false
  }
  // A regular expression literal in a test double (`password: /.+/i`), told from base64 key material
  // that starts and ends with `/` by a character that base64 never holds.
  return !(/^\/.+\/[dgimsuy]*$/.test(value) && /[\\^$.*?()[\]{}|]/.test(value))
}

/** Words of a name in code: `get`, `Env`, `JSON`, `token_hex` split at `_`, digits and case changes. */
const HUMP = /[A-Z]?[a-z]+|[A-Z]+(?![a-z])/g

/**
 * Whether a dotted path reads as names in code (`os.getenv`, `z.string`, `keyring.get_password`,
 * `hashlib.sha256`, `loadHTTPConfig`) rather than as random characters. Each name is made of words
 * with a vowel (`y` counts from three letters on), at most one acronym of up to five capitals, no
 * single stray letter (but `b64`, `x509`), and at most three digits in at most two groups. Measured on
 * seeded random tokens of the corpus alphabets that have the shape of a path at all: none of 40
 * characters in 10^5 reads as code, about 1 in 2,000 of 20; a 12-character token passes far more often,
 * which is why a path is only a reason to leave a value, never to redact one.
 */
export function isCodePath(path: string): boolean {
  return path.split('.').every(isCodeName)
}

function isCodeName(name: string): boolean {
  if (name.length <= 2) return /^[a-z_$]+$/.test(name) || name.length === 1
  if (!/^[A-Za-z_$]/.test(name)) return false
  if ((name.match(/\d/g)?.length ?? 0) > 3 || (name.match(/\d+/g)?.length ?? 0) > 2) return false
  const words = [...name.matchAll(HUMP)]
  if (words.length === 0) return false
  let acronyms = 0
  let letters = 0
  for (const m of words) {
    const w = m[0]
    letters += w.length
    if (w.length === 1 && /\d/.test(name[m.index + 1] ?? '')) continue
    if (/^[A-Z]+$/.test(w)) {
      if (++acronyms > 1 || w.length > 5) return false
      continue
    }
    if (w.length < 2 || !(w.length < 3 ? /[aeiou]/i : /[aeiouy]/i).test(w)) return false
    if (/[b-df-hj-np-tv-xz]{4}/i.test(w)) return false
  }
  // Random letters switch case every one or two characters; names are words of three and more.
  return words.length === 1 || letters / words.length >= 3
}

/**
 * Whether a path-shaped value has a part no one names a file or folder: ten characters or more of mixed
 * case that are not words (`/QfpZOihacMt72YvQXq`). Base64 key material starts with `/` once in 64
 * draws, and is no path for it; `~/.ssh/id_ed25519`, `/Users/JohnSmith/.config` and hex or UUID folder
 * names are.
 */
function hasRandomSegment(path: string): boolean {
  return path
    .split(/[/\\]/)
    .some(
      (p) => p.length >= 10 && /[A-Z]/.test(p) && /[a-z]/.test(p) && !isCodePath(p.replace(/[-\d]+/g, '_')),
    )
}

/** Words a fixture uses to describe itself (`valid-refresh-token`, `test-api-key`, `secret-value`). */
const FIXTURE_WORDS = new Set(
  (
    'a an the it is not my your our this that some any no new old fresh stale valid invalid expired ' +
    'revoked wrong bad good real fake test testing dummy mock sample example demo existing different ' +
    'other another same default random very super long short value values key keys token tokens secret ' +
    'secrets password pass api access refresh auth bearer id client jwt credential credentials session mock mocks'
  ).split(' '),
)

/**
 * `isAssignedSecret`, for names that hold keys and tokens (`api_key`, `refresh_token`, `*_SECRET`)
 * rather than passwords. A value made only of words that describe a credential (`refresh-token`,
 * `valid-refresh-token`, `test-api-key`, `credentials`) is a test fixture or a variable, not a secret.
 * Other words stay suspect: `SESSION_SECRET=keyboard-cat` is a real (weak) secret.
 *
 * @example
 * isAssignedKey('q8Zk3Vx9LmP2') // true
 * isAssignedKey('valid-refresh-token') // false
 */
export function isAssignedKey(raw: string): boolean {
  if (!isAssignedSecret(raw)) return false
  const words = raw
    .replace(/[)\]},:;.!?]+$/, '')
    .toLowerCase()
    .split(/[-_.+ ]+/)
  return !words.every((w) => FIXTURE_WORDS.has(w))
}
