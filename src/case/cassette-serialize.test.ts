import { describe, expect, it } from 'vitest'
import { CrashlabError } from '../errors.ts'
import { serializeCassette } from './cassette-serialize.ts'
import { createRun } from './create-run.ts'
import { cassetteOf } from './internal/test-runs.ts'
import type { Cassette } from './schema/cassette.ts'

const base = (): Cassette =>
  cassetteOf(
    createRun({ name: 'n', id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', startedAt: new Date(Date.UTC(2025, 0, 1)) }),
  )

describe('serializeCassette', () => {
  it('writes sorted keys, two-space indent and a trailing newline', () => {
    const c = base()
    c.run.metadata = { b: [1, { z: true, a: null }], a: {}, c: [] }
    const text = serializeCassette(c)
    expect(text.endsWith('}\n')).toBe(true)
    expect(text.endsWith('\n\n')).toBe(false)
    expect(text.startsWith('{\n  "creator": {\n    "name": "crashlab",')).toBe(true)
    expect(text).toContain(
      '  "metadata": {\n      "a": {},\n      "b": [\n        1,\n        {\n          "a": null,\n          "z": true\n        }\n      ],\n      "c": []\n    },',
    )
    const topKeys = [...text.matchAll(/^ {2}"([^"]+)":/gm)].map((m) => m[1])
    expect(topKeys).toEqual(['creator', 'format', 'run', 'version'])
  })

  it('sorts keys by code point, so astral characters come after U+E000–U+FFFF', () => {
    const c = base()
    c.run.metadata = { '😀': 1, '\uffee': 2, Z: 3, a: 4, é: 5 }
    const text = serializeCassette(c)
    const order = ['"Z"', '"a"', '"é"', '"\uffee"', '"😀"'].map((k) => text.indexOf(`${k}:`))
    expect(order.every((at) => at > 0)).toBe(true)
    expect([...order].sort((x, y) => x - y)).toEqual(order)
  })

  it('writes numbers as JavaScript does: 1.0 is 1, -0 is 0, large and tiny use exponents', () => {
    const c = base()
    c.run.metadata = { one: 1.0, negZero: -0, big: 1e21, tiny: 5e-324, frac: -1.5 }
    const text = serializeCassette(c)
    expect(text).toContain('"one": 1,')
    expect(text).toContain('"negZero": 0,')
    expect(text).toContain('"big": 1e+21,')
    expect(text).toContain('"tiny": 5e-324')
    expect(text).toContain('"frac": -1.5,')
  })

  it('escapes what JSON must and keeps other characters as they are', () => {
    const c = base()
    c.run.name = 'quote " backslash \\ newline \n nul \u0000 lone \ud800 emoji 😀 日本'
    const text = serializeCassette(c)
    expect(text).toContain(
      '"name": "quote \\" backslash \\\\ newline \\n nul \\u0000 lone \\ud800 emoji 😀 日本"',
    )
  })

  it('is an E_CASSETTE_INVALID error, naming the path, for what JSON cannot carry', () => {
    const c = base()
    c.run.metadata = { bad: Number.POSITIVE_INFINITY }
    let err: unknown
    try {
      serializeCassette(c)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(CrashlabError)
    expect((err as CrashlabError).code).toBe('E_CASSETTE_INVALID')
    expect((err as CrashlabError).message).toContain('$.run.metadata.bad')
  })
})
