import { resolve } from 'node:path'
import { defineConfig } from 'vitest/config'
import { crashlab } from '../../../plugin/index.ts'

// The scripted provider listens on loopback: intercept it. Exported tests import 'crashlab/vitest' as a
// user's project does; here that is this repository's source.
export default defineConfig({
  plugins: [crashlab({ hosts: ['127.0.0.1'] })],
  resolve: { alias: { 'crashlab/vitest': resolve(import.meta.dirname, '../../../plugin/index.ts') } },
  test: { include: ['**/*.spec.ts', '**/*.crashlab.test.ts'], testTimeout: 30_000 },
})
