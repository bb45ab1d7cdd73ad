import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { defaultBaselinePath, sanitizeTestName } from './baseline-path.ts'
import { updatePolicy } from './baseline-store.ts'

describe("sanitizeTestName (the plugin's cassette-name rule)", () => {
  test("turns Vitest's ' > ' into ' › ' and percent-encodes what file systems refuse", () => {
    expect(sanitizeTestName('refund bot > clean refund: A17')).toBe('refund bot › clean refund%3A A17')
    expect(sanitizeTestName('a/b\\c*d?"e"<f>|g%')).toBe('a%2Fb%5Cc%2Ad%3F%22e%22%3Cf%3E%7Cg%25')
    expect(sanitizeTestName('.hidden.')).toBe('%2Ehidden%2E')
    expect(sanitizeTestName('Café › 日本語')).toBe('Café %E2%80%BA 日本語')
  })

  test('never maps two names to one file', () => {
    expect(sanitizeTestName('a/b')).not.toBe(sanitizeTestName('a b'))
    expect(sanitizeTestName('a > b')).not.toBe(sanitizeTestName('a › b'))
    expect(sanitizeTestName('')).toBe('%empty')
    expect(sanitizeTestName('\u0000empty')).toBe('%00empty')
  })

  test('cuts names over 180 bytes at 150 and adds ~ and 10 hex of their hash', () => {
    const a = sanitizeTestName(`${'x'.repeat(200)} one`)
    const b = sanitizeTestName(`${'x'.repeat(200)} two`)
    expect(a).toMatch(/^x{150}~[0-9a-f]{10}$/)
    expect(a).not.toBe(b)
    expect(sanitizeTestName('x'.repeat(180))).toBe('x'.repeat(180))
  })
})

describe('defaultBaselinePath', () => {
  test('is under __cassettes__/<test file>/ beside the test file, with the optional name', () => {
    const dir = join('/repo', 'src')
    expect(defaultBaselinePath(join(dir, 'refund.test.ts'), 'refund > happy path')).toBe(
      join(dir, '__cassettes__', 'refund.test.ts', 'refund › happy path.agentcase'),
    )
    expect(defaultBaselinePath(join(dir, 'refund.test.ts'), 'refund > happy path', 'after/refund')).toBe(
      join(dir, '__cassettes__', 'refund.test.ts', 'refund › happy path.after%2Frefund.agentcase'),
    )
  })
})

describe('updatePolicy', () => {
  test("reads Vitest's snapshotUpdateState", () => {
    for (const policy of ['all', 'new', 'none'] as const) {
      expect(updatePolicy({ snapshotState: { snapshotUpdateState: policy } as never })).toBe(policy)
    }
  })

  test('falls back to process.env.CI outside the runner', () => {
    const saved = process.env.CI
    try {
      process.env.CI = 'true'
      expect(updatePolicy({ snapshotState: undefined as never })).toBe('none')
      process.env.CI = 'false'
      expect(updatePolicy({ snapshotState: undefined as never })).toBe('new')
      delete process.env.CI
      expect(updatePolicy({ snapshotState: undefined as never })).toBe('new')
    } finally {
      if (saved === undefined) delete process.env.CI
      else process.env.CI = saved
    }
  })
})
