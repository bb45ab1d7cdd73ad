import { defineConfig } from 'vitest/config'
import { crashlab } from '../../../plugin/index.ts'

// The reporter's fixture: plain clients seen by crashlab's MSW interceptor (the scripted provider is on loopback).
export default defineConfig({
  plugins: [crashlab({ hosts: ['127.0.0.1'] })],
  test: { include: ['**/*.spec.ts'], testTimeout: 20_000 },
})
