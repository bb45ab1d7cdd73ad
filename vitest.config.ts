import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: [
      'src/**/*.test.ts',
      'plugin/**/*.test.ts',
      'matchers/**/*.test.ts',
      'fixtures/**/*.test.ts',
      'test/**/*.test.ts',
      'examples/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', 'dist/**', 'test/fixtures/**'],
    testTimeout: 30_000,
    // Builds dist/ once, for the tests of the built `crashlab` bin.
    globalSetup: ['test/global-setup.ts'],
  },
})
