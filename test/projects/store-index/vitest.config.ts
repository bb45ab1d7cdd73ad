import { defineConfig } from 'vitest/config'
import { crashlab } from '../../../plugin/index.ts'

// The scripted provider listens on loopback: intercept it. FIXTURE_KEEP_SESSIONS sets how many Vitest
// sessions the store keeps indexed.
const keep = process.env.FIXTURE_KEEP_SESSIONS
export default defineConfig({
  plugins: [crashlab({ hosts: ['127.0.0.1'], ...(keep !== undefined && { keepSessions: Number(keep) }) })],
  test: { include: ['**/*.spec.ts'], testTimeout: 30_000 },
})
