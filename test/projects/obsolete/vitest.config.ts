import { defineConfig } from 'vitest/config'
import { crashlab } from '../../../plugin/index.ts'

// Cassettes and baselines in `recordings/` instead of `__cassettes__/`; no model is called.
export default defineConfig({
  plugins: [crashlab({ intercept: false, cassetteDir: 'recordings' })],
  test: { include: ['**/*.spec.ts'], testTimeout: 20_000 },
})
