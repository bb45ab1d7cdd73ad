import { appendFileSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { startScriptedProvider } from 'crashlab/testing'
import { agentCase, crashTest } from 'crashlab/vitest'
import OpenAI from 'openai'
import { afterAll, expect, test } from 'vitest'
import { forecasts, weatherBot } from './agent.js'

// The Vitest 4.1 fixture: one agentCase that records (or replays, under CI=true) a real OpenAI client's
// calls to the scripted provider, compares its regression baseline and passes its checks. The parent
// test reads the line this file logs: the Vitest version seen from here and from crashlab.
const provider = await startScriptedProvider({
  turns: [{ toolCalls: [{ name: 'get_forecast', args: { city: 'Lyon' } }] }, { text: 'Rain in Lyon, 14°C.' }],
})
const client = new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: `${provider.url}/v1`, maxRetries: 0 })
// The crash test's client retries once: a 429 is then retried, and the retry served from the cassette.
const retrying = new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: `${provider.url}/v1`, maxRetries: 1 })
let survivals = 0
const input = `What is the weather in ${process.env.FIXTURE_CITY ?? 'Lyon'}?`

/** The version of the `vitest` package that a module at `from` imports. */
function vitestVersionFrom(from) {
  return JSON.parse(readFileSync(createRequire(from).resolve('vitest/package.json'), 'utf8')).version
}

afterAll(async () => {
  await provider.close()
  const log = process.env.FIXTURE_LOG
  if (!log) return
  const line = {
    requests: provider.requests.length,
    toolRuns: forecasts.calls,
    survivals,
    vitest: vitestVersionFrom(import.meta.url),
    vitestOfCrashlab: vitestVersionFrom(fileURLToPath(import.meta.resolve('crashlab/package.json'))),
  }
  appendFileSync(log, `${JSON.stringify(line)}\n`)
})

test(
  'forecast for Lyon',
  agentCase((input) => weatherBot(client, input), {
    agent: 'weather-bot',
    // The parent test changes the city to make a replay diverge.
    input,
    assert: (run, ctx) => {
      ctx.expect(run).toPassChecks()
      ctx.expect(run).toCallTool('get_forecast', { city: 'Lyon' })
      ctx.expect(run).toMatchAgentCase()
      expect(run.finalMessage).toBe('Rain in Lyon, 14°C.')
    },
  }),
)

// One cell on Vitest 4.1: a 429 at the first model call, which the retrying client survives.
crashTest('forecast for Lyon', (input) => weatherBot(retrying, input), {
  agent: 'weather-bot',
  input,
  faults: [{ kind: 'rate_limit' }],
  steps: [0],
  // Reached only by a cell that finished and passed its checks: counted for the parent test.
  survive: () => {
    survivals++
    return true
  },
})
