import { defineConfig } from 'vitest/config'
import { crashlab } from '../../../plugin/index.ts'

// The client is wrapped, so the MSW interceptor stays off. crashlab.config.ts beside this file is found
// from the project root.
export default defineConfig({
  plugins: [crashlab({ intercept: false })],
  test: { include: ['**/*.spec.ts'], testTimeout: 20_000 },
})
