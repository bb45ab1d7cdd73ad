import { crashlab } from 'crashlab/vitest'
import { defineConfig } from 'vitest/config'

// Runs on the Vitest 4.1 and the built crashlab package that test/plugin-vitest4.test.ts puts in this
// project's node_modules: `vitest` and `crashlab` resolve there, the SDK from the repository.
export default defineConfig({
  plugins: [crashlab({ hosts: ['127.0.0.1'] })],
  test: { include: ['**/*.spec.js'], testTimeout: 20_000 },
})
