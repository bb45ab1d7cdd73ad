import { defineConfig } from 'vitest/config'
import { crashlab } from '../../../plugin/index.ts'

// The replay rule outside any test's Session: under CI=true (replay mode) a module-level request and an
// afterAll request to a "remote" server (127.0.0.2, listed in CRASHLAB_REMOTE_ADDRESSES by the parent
// test) are refused with a warning; a live() test keeps its network.
export default defineConfig({
  // FIXTURE_ALLOW_HOSTS: set by the parent test to check the plugin's `allowHosts`.
  plugins: [crashlab({ allowHosts: process.env.FIXTURE_ALLOW_HOSTS?.split(',') })],
  test: { include: ['**/*.spec.ts'], testTimeout: 20_000 },
})
