import type { JsonObject } from '../../../src/case/schema/json.ts'
import type { HttpStep } from '../../../src/case/schema/step.ts'
import { formEncode, type Rng } from './gen.ts'
import { contentChunks, type RunBuilder, toolArgumentChunks } from './run-builder.ts'

/**
 * Where a secret can sit in a recorded run. `plant` puts `text` (a planted credential, with the
 * surrounding words it came with) at its own place in the run under construction; `slot` makes
 * that place distinct from every other planting of the same location.
 */
export interface Location {
  id: string
  plant(b: RunBuilder, text: string, slot: string, rng: Rng): void
}

/** Splits `text` at `offset` into two pieces (the empty piece kept: a stream can send one). */
export function splitAt(text: string, offset: number): string[] {
  return [text.slice(0, offset), text.slice(offset)]
}

/**
 * An offset inside the secret's span of `whole`, drawn from `rng` (end to end streams sample offsets;
 * the redactor-level test splits at every one). Drawn within the first 24 characters of the span, so
 * that a rotated secret of another length is split at the same place and the rotation property can
 * compare bytes.
 */
function sampleOffset(whole: string, text: string, rng: Rng): number {
  const start = whole.indexOf(text)
  return start + rng.int(Math.min(text.length, 24) + 1)
}

export const LOCATIONS: readonly Location[] = [
  {
    id: 'request-header',
    plant(b, text, slot) {
      const step = b.sharedStep<HttpStep>('request-header', () => ({
        type: 'http',
        label: 'unknown',
        request: { method: 'GET', url: 'https://api.example.com/v1/status', headers: {}, body: null },
        response: { status: 204, headers: {}, body: null },
        error: null,
      }))
      step.request.headers[`x-debug-${slot}`] = `trace ${text}`
    },
  },
  {
    id: 'authorization-header',
    plant(b, text) {
      b.http(
        { headers: { authorization: `Bearer ${text}` } },
        { status: 200, headers: {}, body: { ok: true } },
      )
    },
  },
  {
    id: 'url-query-raw',
    plant(b, text) {
      b.http(
        { url: `https://api.example.com/v1/search?q=weather&note=${text}` },
        { status: 200, headers: {}, body: { results: [] } },
      )
    },
  },
  {
    id: 'url-query-encoded',
    plant(b, text) {
      b.http(
        { url: `https://api.example.com/v1/search?q=weather&note=${encodeURIComponent(text)}` },
        { status: 200, headers: {}, body: { results: [] } },
      )
    },
  },
  {
    id: 'form-urlencoded-body',
    plant(b, text) {
      b.http(
        {
          method: 'POST',
          url: 'https://auth.example.com/oauth/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: null,
          bodyText: `grant_type=client_credentials&note=${formEncode(text)}&scope=read`,
        },
        { status: 200, headers: {}, body: { ok: true } },
      )
    },
  },
  {
    id: 'json-body',
    plant(b, text, slot) {
      const step = b.sharedStep<HttpStep>('json-body', () => ({
        type: 'http',
        label: 'unknown',
        request: {
          method: 'POST',
          url: 'https://api.example.com/v1/notes',
          headers: {},
          body: { items: {} },
        },
        response: { status: 201, headers: {}, body: null },
        error: null,
      }))
      const items = (step.request.body as { items: JsonObject }).items
      items[slot] = { note: `context: ${text}`, tags: ['a', 'b'] }
    },
  },
  {
    id: 'system-prompt',
    plant: (b, text) =>
      void b.llm({ system: `You are a deploy agent. Use these credentials:\n${text}\nNever reveal them.` }),
  },
  {
    id: 'user-message',
    plant: (b, text) => void b.llm({ user: `Here is the config I use: ${text} — why does it fail?` }),
  },
  { id: 'assistant-reply', plant: (b, text) => void b.llm({ reply: `I found this in the logs: ${text}` }) },
  {
    id: 'tool-args-nested',
    plant(b, text) {
      b.tool(
        'deploy',
        {
          target: 'prod',
          config: {
            env: [
              { name: 'FLAGS', value: '--fast' },
              { name: 'EXTRA', value: `set ${text}` },
            ],
          },
        },
        { result: { ok: true } },
      )
    },
  },
  {
    // The wire's `arguments` is JSON held as text: the secret follows a `\n` escape.
    id: 'tool-call-arguments-string',
    plant: (b, text) => void b.llm({ toolArguments: JSON.stringify({ script: `set -e\n${text}\nrun` }) }),
  },
  {
    id: 'sse-content-stream',
    plant(b, text, _slot, rng) {
      const whole = `Sure, here it is: ${text} — keep it safe.`
      b.llm({ chunks: contentChunks(splitAt(whole, sampleOffset(whole, text, rng))), reply: whole })
    },
  },
  {
    // Streamed tool arguments assemble into JSON text; the secret follows a `\"` escape.
    id: 'sse-tool-arguments-stream',
    plant(b, text, _slot, rng) {
      const args = JSON.stringify({ cmd: `echo "${text}"` })
      const inner = JSON.stringify(text).slice(1, -1)
      b.llm({
        chunks: toolArgumentChunks(splitAt(args, sampleOffset(args, inner, rng))),
        toolArguments: args,
      })
    },
  },
  {
    id: 'error-body-4xx',
    plant(b, text) {
      b.llm({
        status: 401,
        errorBody: {
          error: {
            message: `Incorrect API key provided: ${text}.`,
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        },
        stepError: `401 Incorrect API key provided: ${text}.`,
      })
    },
  },
  {
    id: 'error-body-5xx',
    plant(b, text) {
      b.http(
        { method: 'POST', url: 'https://api.example.com/v1/jobs' },
        {
          status: 502,
          headers: { 'content-type': 'text/html' },
          body: null,
          bodyText: `<html><body>502 Bad Gateway: upstream said ${text}</body></html>`,
        },
      )
    },
  },
  {
    id: 'tool-result-object',
    plant: (b, text) =>
      void b.tool(
        'read_config',
        { file: '.env' },
        { result: { ok: true, rows: [{ line: 3, value: text }] } },
      ),
  },
  {
    id: 'tool-result-json-string',
    plant: (b, text) =>
      void b.tool(
        'shell',
        { cmd: 'cat .env' },
        { result: JSON.stringify({ stdout: `loaded\n${text}`, code: 0 }) },
      ),
  },
  {
    id: 'tool-result-escaped-quote',
    plant: (b, text) =>
      void b.tool('grep', { pattern: 'key' }, { result: JSON.stringify({ match: `he said "${text}"` }) }),
  },
  {
    id: 'tool-result-after-backslash',
    plant: (b, text) =>
      void b.tool(
        'read_file',
        { path: 'C:\\keys' },
        { result: JSON.stringify({ path: `C:\\keys\\${text}` }) },
      ),
  },
  {
    id: 'tool-result-in-llm-request',
    plant: (b, text) => void b.llm({ toolResult: JSON.stringify({ output: `value:\n${text}` }) }),
  },
  {
    id: 'tool-error-thrown',
    plant: (b, text) =>
      void b.tool(
        'connect',
        { host: 'db' },
        { error: { name: 'Error', message: `connection refused using ${text}` } },
      ),
  },
  {
    id: 'run-input',
    plant(b, text, slot) {
      b.input[slot] = `Task: rotate the credential ${text} today`
    },
  },
  {
    id: 'run-output',
    plant(b, text, slot) {
      b.output[slot] = { answer: `Done. The old value was ${text}.` }
    },
  },
  { id: 'run-error', plant: (b, text) => void b.errors.push(`failed with ${text}`) },
  {
    id: 'finding-evidence',
    plant(b, text, slot) {
      b.findings.push({
        kind: `secret-in-output-${slot}`,
        severity: 'warn',
        steps: [],
        message: `saw ${text}`,
        evidence: [`quote: ${text}`],
      })
    },
  },
  {
    id: 'check-message',
    plant(b, text, slot) {
      b.checks.push({ name: `no-secrets-${slot}`, passed: false, message: `expected nothing, got ${text}` })
    },
  },
  {
    id: 'run-metadata',
    plant(b, text, slot) {
      b.metadata[slot] = { note: text }
    },
  },
]
