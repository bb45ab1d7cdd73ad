import { defineConfig } from 'vitest/config'
import { crashlab } from '../../plugin/index.ts' // in your project: 'crashlab/vitest'

// One Vitest project for the four framework examples and the MCP one. No wrap(client): the frameworks make their own
// clients, so crashlab's MSW interceptor (the plugin's default) sees their calls. The agents talk to the
// scripted provider on loopback (127.0.0.1, a new port each run), hence `hosts`: a bare host matches
// any port, and a replay matches model calls by their content, not their URL. `otherHosts: 'error'`
// also while recording: a framework that calls home (telemetry, a tokenizer download, a model registry)
// fails its test with E_UNHANDLED_HOST instead of reaching the network unrecorded. (`hosts` adds to the
// model APIs crashlab always intercepts: a framework that falls back to api.openai.com has no recording
// to replay, and fails.)
//
//   CI=true npx vitest run                 replays the committed cassettes, offline
//   node record-cassettes.ts               records them again against the scripted provider
export default defineConfig({
  plugins: [crashlab({ hosts: ['127.0.0.1'], otherHosts: 'error' })],
  test: {
    include: ['*/*.spec.ts'],
    testTimeout: 20_000,
    env: {
      // Mastra's product telemetry (PostHog, us.posthog.com) and the OpenAI Agents SDK's trace export
      // (api.openai.com/v1/traces/ingest): never from a test. See mastra/README.md, openai-agents/README.md.
      MASTRA_TELEMETRY_DISABLED: '1',
      OPENAI_AGENTS_DISABLE_TRACING: '1',
    },
  },
})
