import { defineConfig } from 'vitest/config'
import { crashlab } from '../../../plugin/index.ts'

// No wrap(client): crashlab's MSW interceptor sees the calls. The scripted provider listens on loopback.
export default defineConfig({
  plugins: [crashlab({ hosts: ['127.0.0.1'] })],
  test: { include: ['**/*.spec.ts'], testTimeout: 20_000 },
})
