/**
 * Fixing a run: 1–3 ranked typed patches proposed from its diagnosis by one LLM call, each kept only when
 * it parses, finds its target, is small, is not test-only and does not hard-code the run's data.
 */
export { hardCodedData } from './hard-coded-data.ts'
export {
  MAX_FIX_CHARS,
  MAX_FIX_LEAVES,
  MAX_FIXES,
  type ProposedFixes,
  type ProposeFixesOptions,
  proposeFixes,
  type RejectedFix,
} from './propose-fixes.ts'
