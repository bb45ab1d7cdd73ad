import { defineConfig } from 'vitest/config'
import { crashlab } from '../../../plugin/index.ts'

export default defineConfig({
  // FIXTURE_INTERCEPT=1: the MSW interceptor sees a plain client; otherwise the client is wrapped.
  plugins: [crashlab(process.env.FIXTURE_INTERCEPT ? { hosts: ['127.0.0.1'] } : { intercept: false })],
  test: { include: ['**/*.spec.ts'], maxConcurrency: 24, testTimeout: 20_000 },
})
