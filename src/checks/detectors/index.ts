/**
 * Runtime detectors: cheap, deterministic checks of how a run behaved (repetition, tool error streaks,
 * bad tool arguments, suspicious tool results, budgets, length cut-offs), over a stored run
 * (`detectFindings`) or step by step while it is recorded or replayed (`createDetectors`).
 */
export { createDetectors, type Detectors } from './create-detectors.ts'
export { detectFindings } from './detect-findings.ts'
export {
  CHECKS_DEFAULTS,
  type ChecksOptions,
  ChecksOptionsSchema,
  isTrustedChecksOptions,
  type ResolvedChecksOptions,
  resolveChecksOptions,
  trustChecksOptions,
} from './options.ts'
