import { describe, expect, it } from 'vitest'
import { createRedactor } from '../redact/create-redactor.ts'
import { SECRET_CORPUS } from '../redact/test-corpus.ts'
import { binaryOf, createBodyFile, prepareBodyFile, sha256Hex } from './binary-bodies.ts'

const OPENAI_KEY = SECRET_CORPUS.find((e) => e.id === 'openai-project-key')!.secret
const STRIPE_KEY = SECRET_CORPUS.find((e) => e.id === 'stripe-key')!.secret
/** Bytes that are not text, with the key planted in them: a file part is kept as it is, key and all. */
const AUDIO = new Uint8Array([0xff, 0xfb, 0x90, 0x00, ...Buffer.from(OPENAI_KEY), 0x00, 0xfe])

const text = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? []).toString('latin1')

/** A multipart body as clients write it, with a boundary of their own. */
function form(boundary: string, fields: Record<string, string>, file = AUDIO): Uint8Array {
  const parts: Buffer[] = []
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    )
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="note.mp3"\r\nContent-Type: audio/mpeg\r\n\r\n`,
    ),
    Buffer.from(file),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  )
  return new Uint8Array(Buffer.concat(parts))
}

describe('prepareBodyFile: the text a binary body carries is redacted before it is hashed', () => {
  const fields = {
    purpose: 'transcribe',
    prompt: `the caller said ${OPENAI_KEY}`,
    api_key: 'plain-words-here',
  }

  it('redacts the text fields of a multipart body, keeps the file part byte for byte', () => {
    const { file, contentType } = prepareBodyFile(
      form('----formdata-undici-012345678901', fields),
      'multipart/form-data; boundary=----formdata-undici-012345678901',
    )
    const stored = text(binaryOf(file))
    expect(stored).not.toContain(`the caller said ${OPENAI_KEY}`)
    expect(stored).toContain('the caller said [REDACTED:openai-key]')
    // A field named like a credential is replaced whole, whatever it holds.
    expect(stored).toContain('name="api_key"\r\n\r\n[REDACTED:sensitive-key]\r\n')
    expect(stored).toContain('name="purpose"\r\n\r\ntranscribe\r\n')
    // The file part is not scanned: its bytes, key included, are as they came.
    expect(stored).toContain(text(AUDIO))
    expect(contentType).toBe('multipart/form-data; boundary=----crashlab-form-boundary')
    expect(stored.startsWith('------crashlab-form-boundary\r\n')).toBe(true)
    expect(stored.endsWith('------crashlab-form-boundary--\r\n')).toBe(true)
    expect(file).toMatchObject({ mediaType: 'multipart/form-data', sha256: sha256Hex(binaryOf(file)!) })
  })

  it('hashes the same upload the same whatever boundary the client drew, and again once prepared', () => {
    const a = prepareBodyFile(
      form('----formdata-undici-111', fields),
      'multipart/form-data; boundary=----formdata-undici-111',
    )
    const b = prepareBodyFile(form('xyz', fields), 'multipart/form-data; boundary="xyz"')
    expect(b.file.sha256).toBe(a.file.sha256)
    const again = prepareBodyFile(binaryOf(a.file)!, a.contentType)
    expect(again.file.sha256).toBe(a.file.sha256)
    expect(again.contentType).toBe(a.contentType)
    const other = prepareBodyFile(
      form('xyz', { ...fields, purpose: 'translate' }),
      'multipart/form-data; boundary=xyz',
    )
    expect(other.file.sha256).not.toBe(a.file.sha256)
  })

  it('picks another boundary when the content holds the fixed one', () => {
    const { file, contentType } = prepareBodyFile(
      form('b', { note: 'a line ------crashlab-form-boundary in it' }),
      'multipart/form-data; boundary=b',
    )
    expect(contentType).toBe('multipart/form-data; boundary=----crashlab-form-boundary-1')
    expect(text(binaryOf(file))).toContain('a line ------crashlab-form-boundary in it')
  })

  it('keeps a multipart body it cannot parse as it came', () => {
    const broken = Buffer.from(`--b\r\nContent-Disposition: form-data; name="prompt"\r\n\r\n${OPENAI_KEY}`)
    const { file, contentType } = prepareBodyFile(broken, 'multipart/form-data; boundary=b')
    expect(Buffer.from(binaryOf(file)!).equals(broken)).toBe(true)
    expect(contentType).toBe('multipart/form-data; boundary=b')
  })

  it('redacts text, JSON and form bodies that came as bytes, with the redactor given', () => {
    const plain = createBodyFile(Buffer.from(`log line: key ${STRIPE_KEY} used`), 'text/plain; charset=utf-8')
    expect(text(binaryOf(plain))).toBe('log line: key [REDACTED:stripe-key] used')
    expect(plain.bytes).toBe(binaryOf(plain)!.byteLength)

    const json = createBodyFile(Buffer.from(JSON.stringify({ note: OPENAI_KEY, n: 1 })), 'application/json')
    expect(JSON.parse(text(binaryOf(json)))).toEqual({ note: '[REDACTED:openai-key]', n: 1 })

    const formBody = createBodyFile(
      Buffer.from(`q=refund+A17&client_secret=${encodeURIComponent('s3cr3t-value-123')}&n=%F0%9F%98%80`),
      'application/x-www-form-urlencoded',
    )
    expect(text(binaryOf(formBody))).toBe(
      `q=refund+A17&client_secret=${encodeURIComponent('[REDACTED:sensitive-key]')}&n=%F0%9F%98%80`,
    )

    const custom = createRedactor({ patterns: [{ id: 'acme-ticket', pattern: /\bACME-\d{6}\b/ }] })
    const ticket = createBodyFile(Buffer.from('see ACME-123456'), 'text/markdown', { redactor: custom })
    expect(text(binaryOf(ticket))).toBe('see [REDACTED:acme-ticket]')
  })

  it('leaves audio, images and text that is not UTF-8 as they are', () => {
    const audio = createBodyFile(AUDIO, 'audio/mpeg')
    expect(binaryOf(audio)).toBe(AUDIO)
    expect(audio.sha256).toBe(sha256Hex(AUDIO))
    const latin1 = Buffer.concat([Buffer.from(`${OPENAI_KEY} `), Buffer.from([0xe9])])
    expect(Buffer.from(binaryOf(createBodyFile(latin1, 'text/plain'))!).equals(latin1)).toBe(true)
  })
})
