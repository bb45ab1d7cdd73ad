import { defineConfig } from 'vitest/config'
import { crashlab } from '../../../plugin/index.ts'

export default defineConfig({
  plugins: [crashlab({ intercept: false })],
  test: { include: ['**/*.spec.ts'], maxConcurrency: 24, testTimeout: 20_000 },
})
