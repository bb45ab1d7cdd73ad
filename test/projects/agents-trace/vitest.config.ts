import { defineConfig } from 'vitest/config'
import { crashlab } from '../../../plugin/index.ts'

// The OpenAI Agents SDK with tracing on, its exporter pointed at a server of the parent test on
// 127.0.0.2 (remote to crashlab through CRASHLAB_REMOTE_ADDRESSES). The scripted provider listens on
// loopback: intercept it, so that a replay serves the model calls from the cassette.
export default defineConfig({
  // FIXTURE_ALLOW_HOSTS: set by the parent test to let a replay reach the trace endpoint.
  plugins: [crashlab({ hosts: ['127.0.0.1'], allowHosts: process.env.FIXTURE_ALLOW_HOSTS?.split(',') })],
  test: { include: ['**/*.spec.ts'], testTimeout: 20_000 },
})
