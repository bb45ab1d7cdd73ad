import { defineConfig } from 'vitest/config'
import { crashlab } from '../../../plugin/index.ts'

// The plugin's redaction and matching options. Functions cross to the workers as modules.
export default defineConfig({
  plugins: [
    crashlab({
      hosts: ['127.0.0.1'],
      redaction: {
        patterns: [{ id: 'acme-ticket', pattern: /ACME-\d{6}/ }],
        keys: ['x-tenant'],
        hooks: './redaction-hooks.ts',
      },
      // The parent test drops the matching rules once, to see the replay fail without them.
      matching: process.env.FIXTURE_NO_MATCHING
        ? undefined
        : { ignoreParams: ['x_trace_id'], normalize: './strip-date.ts' },
    }),
  ],
  test: { include: ['**/*.spec.ts'], testTimeout: 20_000 },
})
