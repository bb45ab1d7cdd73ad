/**
 * Verifying a fix: patched forks against unpatched controls, and past good runs with and without the
 * patch, run until a sequential test (testing by betting) decides the verdict or the budget runs out;
 * Wilson 95 % intervals and pass^k beside the rates (docs/verify.md).
 */
export { type BetOptions, type BetState, bet, reachable } from './betting.ts'
export {
  DEFAULT_ALPHA,
  DEFAULT_TOLERANCE,
  decideSequential,
  type GoodRunTrials,
  type SequentialDecision,
  type SequentialInput,
} from './sequential.ts'
export { armStats, passHatK, wilson, Z95 } from './stats.ts'
export {
  DEFAULT_K,
  DEFAULT_REGRESS_RUNS,
  decideTrials,
  judgeFork,
  nextRound,
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
