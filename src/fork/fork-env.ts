/**
 * The environment variables the plugin's setup file reads to fork the one test that `crashlab replay`'s
 * hook (`CRASHLAB_REPLAY_RUN`/`_TEST`/`_OUT`) replays: the fork step, a file with the patch as JSON, and
 * an optional base URL for the live calls.
 *
 * @example
 * env[FORK_ENV.at] = '2'; env[FORK_ENV.patch] = '/tmp/patch.json'
 */
export const FORK_ENV = {
  at: 'CRASHLAB_FORK_AT',
  patch: 'CRASHLAB_FORK_PATCH',
  baseUrl: 'CRASHLAB_FORK_BASE_URL',
} as const
