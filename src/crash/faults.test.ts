import { describe, expect, it } from 'vitest'
import { CrashlabError } from '../errors.ts'
import {
  ALL_MCP_FAULTS,
  ALL_MODEL_FAULTS,
  ALL_TOOL_FAULTS,
  FAULT_KINDS,
  type Fault,
  faultLabel,
  isModelFault,
  MCP_FAULT_KINDS,
  MODEL_FAULT_KINDS,
  parseFault,
  parseFaultList,
  TOOL_FAULT_KINDS,
} from './faults.ts'

function thrown(fn: () => unknown): CrashlabError {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(CrashlabError)
    return err as CrashlabError
  }
  throw new Error('expected a CrashlabError')
}

describe('FAULT_KINDS and the default instances', () => {
  it('every kind has a summary and a target, and the lists follow the kind order', () => {
    expect(Object.keys(FAULT_KINDS)).toEqual([...MODEL_FAULT_KINDS, ...TOOL_FAULT_KINDS, ...MCP_FAULT_KINDS])
    expect(ALL_MCP_FAULTS.map((f) => f.kind)).toEqual([...MCP_FAULT_KINDS])
    for (const f of ALL_MCP_FAULTS) expect(FAULT_KINDS[f.kind].target).toBe('mcp')
    expect(ALL_MODEL_FAULTS.map((f) => f.kind)).toEqual([...MODEL_FAULT_KINDS])
    expect(ALL_TOOL_FAULTS.map((f) => f.kind)).toEqual([...TOOL_FAULT_KINDS])
    for (const f of ALL_MODEL_FAULTS) expect(FAULT_KINDS[f.kind].target).toBe('model')
    for (const f of ALL_TOOL_FAULTS) expect(FAULT_KINDS[f.kind].target).toBe('tool')
    expect(isModelFault({ kind: 'timeout' })).toBe(true)
    expect(isModelFault({ kind: 'tool_timeout' })).toBe(false)
  })

  it('the default instances are valid faults, carry the documented defaults, and survive JSON', () => {
    for (const f of [...ALL_MODEL_FAULTS, ...ALL_TOOL_FAULTS, ...ALL_MCP_FAULTS]) {
      expect(parseFault(JSON.parse(JSON.stringify(f)))).toEqual(f)
    }
    expect(ALL_MODEL_FAULTS).toContainEqual({ kind: 'rate_limit', retryAfterSeconds: 0 })
    expect(ALL_MODEL_FAULTS).toContainEqual({ kind: 'gateway_html', status: 502 })
    expect(ALL_MODEL_FAULTS).toContainEqual({ kind: 'stream_cut', afterChunks: 1 })
  })
})

describe('parseFault', () => {
  it('accepts each kind with its parameter', () => {
    expect(parseFault({ kind: 'gateway_html', status: 503 })).toEqual({ kind: 'gateway_html', status: 503 })
    expect(parseFault({ kind: 'tool_throw', message: 'boom' })).toEqual({
      kind: 'tool_throw',
      message: 'boom',
    })
  })

  it('an unknown kind: E_FAULT_INVALID listing the valid kinds', () => {
    const err = thrown(() => parseFault({ kind: 'rate_limt' }))
    expect(err.code).toBe('E_FAULT_INVALID')
    expect(err.message).toContain('unknown fault kind')
    for (const kind of [...MODEL_FAULT_KINDS, ...TOOL_FAULT_KINDS, ...MCP_FAULT_KINDS])
      expect(err.message).toContain(kind)
    expect(err.issues[0]?.path).toBe('$.kind')
  })

  it('a bad parameter names its field', () => {
    const status = thrown(() => parseFault({ kind: 'gateway_html', status: 504 }))
    expect(status.issues.map((i) => i.path)).toEqual(['$.status'])
    expect(status.message).toContain('$.status')
    expect(status.message).toContain('expected one of 502, 503')
    const chunks = thrown(() => parseFault({ kind: 'stream_cut', afterChunks: -1 }))
    expect(chunks.issues[0]?.path).toBe('$.afterChunks')
    const seconds = thrown(() => parseFault({ kind: 'rate_limit', retryAfterSeconds: 1.5 }))
    expect(seconds.issues[0]?.path).toBe('$.retryAfterSeconds')
  })

  it('a misspelt key is an error naming it, not a fault at its default', () => {
    const err = thrown(() => parseFault({ kind: 'stream_cut', afterChunk: 2 }))
    expect(err.issues[0]?.path).toBe('$.afterChunk')
    expect(err.message).toContain('unknown key "afterChunk"')
  })

  it('not an object at all', () => {
    expect(thrown(() => parseFault('rate_limit')).code).toBe('E_FAULT_INVALID')
    expect(thrown(() => parseFault(null)).code).toBe('E_FAULT_INVALID')
  })
})

describe('parseFaultList', () => {
  it('reads kinds and their one parameter, in order', () => {
    expect(parseFaultList('rate_limit,gateway_html:503,stream_cut:2,tool_throw')).toEqual([
      { kind: 'rate_limit' },
      { kind: 'gateway_html', status: 503 },
      { kind: 'stream_cut', afterChunks: 2 },
      { kind: 'tool_throw' },
    ])
    expect(parseFaultList(' rate_limit:5 , tool_throw:db down ')).toEqual([
      { kind: 'rate_limit', retryAfterSeconds: 5 },
      { kind: 'tool_throw', message: 'db down' },
    ])
  })

  it('an unknown kind: a clear error naming the item and listing the kinds', () => {
    const err = thrown(() => parseFaultList('rate_limit,ratelimit:3'))
    expect(err.code).toBe('E_FAULT_INVALID')
    expect(err.message).toContain('"ratelimit"')
    expect(err.message).toContain('expected one of rate_limit, server_error, gateway_html')
    expect(err.message).toContain('tool_shape_drift')
  })

  it('a parameter the kind does not take, a number that is not one, a value out of range', () => {
    expect(thrown(() => parseFaultList('timeout:5')).message).toContain('timeout takes no ":" argument')
    const nan = thrown(() => parseFaultList('stream_cut:two'))
    expect(nan.issues[0]?.path).toBe('$.afterChunks')
    expect(nan.message).toContain('"two"')
    const range = thrown(() => parseFaultList('gateway_html:500'))
    expect(range.issues[0]?.path).toBe('$.status')
    expect(range.message).toContain('fault "gateway_html:500"')
  })

  it('an empty list is an error, not zero faults', () => {
    expect(thrown(() => parseFaultList(' , ')).message).toContain('no faults')
  })
})

describe('faultLabel', () => {
  it('short labels with the parameter, defaults filled in', () => {
    const cases: [Fault, string][] = [
      [{ kind: 'rate_limit' }, '429 (retry-after 0s)'],
      [{ kind: 'rate_limit', retryAfterSeconds: 3 }, '429 (retry-after 3s)'],
      [{ kind: 'gateway_html' }, 'HTML 502'],
      [{ kind: 'gateway_html', status: 503 }, 'HTML 503'],
      [{ kind: 'stream_cut', afterChunks: 2 }, 'stream cut @2'],
      [{ kind: 'stream_cut' }, 'stream cut @1'],
      [
        { kind: 'tool_throw', message: 'a very long message that goes on and on' },
        'tool throws "a very long message tha…"',
      ],
    ]
    for (const [fault, label] of cases) expect(faultLabel(fault)).toBe(label)
  })

  it('every default fault has its own label', () => {
    const labels = [...ALL_MODEL_FAULTS, ...ALL_TOOL_FAULTS, ...ALL_MCP_FAULTS].map(faultLabel)
    expect(new Set(labels).size).toBe(labels.length)
  })
})
