import { describe, expect, it } from 'vitest'
import { LineSplitter } from './internal/line-splitter.ts'
import { parseJsonRpcLine } from './json-rpc.ts'

const initialize = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}'
const initialized = '{"jsonrpc":"2.0","method":"notifications/initialized"}'

/** Every JSON-RPC message that a sequence of chunks carries, through the splitter and the parser. */
function messages(chunks: Array<string | Buffer>): unknown[] {
  const splitter = new LineSplitter()
  return chunks.flatMap((chunk) => splitter.push(chunk)).flatMap((line) => parseJsonRpcLine(line) ?? [])
}

describe('the stdio line parser', () => {
  it('joins a message split across chunks, at any byte', () => {
    const whole = `${initialize}\n`
    for (let cut = 1; cut < whole.length; cut++) {
      expect(messages([whole.slice(0, cut), whole.slice(cut)])).toEqual([JSON.parse(initialize)])
    }
  })

  it('keeps a UTF-8 character cut between two chunks intact', () => {
    const line = Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"text":"Zürich €"}}\n')
    const cut = line.indexOf(Buffer.from('€')) + 1
    expect(messages([line.subarray(0, cut), line.subarray(cut)])).toEqual([
      { jsonrpc: '2.0', id: 1, result: { text: 'Zürich €' } },
    ])
  })

  it('reads two messages from one chunk, and a CRLF line', () => {
    expect(messages([`${initialize}\r\n${initialized}\n`])).toEqual([
      JSON.parse(initialize),
      JSON.parse(initialized),
    ])
  })

  it('holds back an unfinished line until its newline comes', () => {
    const splitter = new LineSplitter()
    expect(splitter.push(`${initialized}\n{"jsonrpc":`)).toEqual([initialized])
    expect(splitter.pending).toBe(11)
    expect(splitter.push('"2.0"}\n')).toEqual(['{"jsonrpc":"2.0"}'])
  })

  it('passes over non-JSON lines (a server log), blank lines, batches and non-JSON-RPC JSON', () => {
    expect(
      messages([
        `server log: starting\n\n[${initialized}]\n{"hello":1}\n{"jsonrpc":"2.0","id":1}\n{broken\n${initialized}\n`,
      ]),
    ).toEqual([JSON.parse(initialized)])
  })

  it('drops the start of an overlong unfinished line but keeps framing the next ones', () => {
    const splitter = new LineSplitter(8)
    expect(splitter.push('x'.repeat(20))).toEqual([])
    expect(splitter.pending).toBe(0)
    expect(splitter.push(`yy\n${initialized}\n`)).toEqual(['yy', initialized])
  })
})
