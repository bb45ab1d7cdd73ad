/**
 * The Vitest reporter flags of the commands that run their work as Vitest tasks (`verify --vitest`,
 * `crash-test --vitest`): which reporter a shard writes with, and where.
 *
 * @example
 * args: { ...VITEST_REPORTER_ARGS, vitest: { type: 'boolean', description: '…' } }
 */
export const VITEST_REPORTER_ARGS = {
  reporter: {
    type: 'string',
    description: 'with --vitest: a Vitest reporter instead of the default (blob)',
    valueHint: 'name',
  },
  'output-file': { type: 'string', description: "with --vitest: Vitest's --outputFile", valueHint: 'path' },
} as const
