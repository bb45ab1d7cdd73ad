import { defineConfig } from 'vitest/config'
import { crashlab } from '../../../plugin/index.ts'

// The plugin's `tasks`: the failed agent runs of this session are diagnosed, fixed (the scripted
// provider plays the fixer model too) and verified as Vitest tasks, in projects run after this one.
export default defineConfig({
  plugins: [crashlab({ hosts: ['127.0.0.1'], tasks: { k: 5, slots: 2 } })],
  test: { include: ['**/*.spec.ts'], testTimeout: 60_000 },
})
