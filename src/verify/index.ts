/**
 * Verifying a fix: k patched forks against k unpatched controls, plus the patch on past good runs, with
 * Wilson 95 % intervals, pass^k and a verdict (docs/verify.md).
 */
export { armStats, decideVerdict, minUsable, passHatK, wilson, Z95 } from './stats.ts'
export {
  DEFAULT_K,
  DEFAULT_REGRESS_RUNS,
  judgeFork,
  planVerification,
  type RegressOption,
  runTrial,
  summarizeVerification,
  type TrialSpec,
  type VerifyOptions,
  type VerifyPlan,
  type VerifyProgress,
  type VerifyResult,
  verify,
} from './verify.ts'
