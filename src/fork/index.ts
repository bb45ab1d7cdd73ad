/**
 * Forks: a stored run started again through its entry point, replayed up to a step and live from it on,
 * with a patch applied to every model request from that step (docs/fork.md).
 */
export { type ForkOptions, type ForkResult, fork, forkRequestHook } from './fork.ts'
export { FORK_ENV } from './fork-env.ts'
