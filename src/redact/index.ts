/**
 * Redaction applied before anything is written, and the leak scanner that checks it was.
 * Every writer (cassettes, AgentCase export, reports) calls `redactDocument`; `crashlab scan` calls `scanPaths`.
 */

export { createRedactor } from './create-redactor.ts'
export { formatScanReport } from './format-scan-report.ts'
export { DEFAULT_PATTERNS } from './internal/default-patterns.ts'
export { FAILED_MARKER } from './internal/redact-walk.ts'
export { normalizeKey, SENSITIVE_MARKER } from './internal/sensitive-keys.ts'
export { redactDocument } from './redact-document.ts'
export { redaction } from './redaction.ts'
export { scanDocument } from './scan-document.ts'
export { scanPaths } from './scan-paths.ts'
export { scanText } from './scan-text.ts'
export type { ScanAllowList, ScanFinding, ScanOptions, ScanReport } from './scan-types.ts'
export type {
  HookRule,
  PatternRule,
  RedactionConfig,
  RedactionHook,
  RedactionRecord,
  RedactionResult,
  Redactor,
} from './types.ts'
