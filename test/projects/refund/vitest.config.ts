import { defineConfig } from 'vitest/config'
import { crashlab } from '../../../plugin/index.ts'

// The client is wrapped (wrap(client)), so the MSW interceptor stays off: it would see the same calls again.
export default defineConfig({
  plugins: [crashlab({ intercept: false })],
  test: { include: ['**/*.spec.ts'], testTimeout: 20_000 },
})
