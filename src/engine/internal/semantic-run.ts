import type { Run } from '../../case/schema/run.ts'

/**
 * A run imported from a trace (`run.metadata.otelImport`): its model steps hold what the spans held, a
 * normalized request and response, not an HTTP exchange. A span seldom says which wire API was called,
 * so such a run is replayed semantically: a live call is matched on what the span holds, and its
 * answer is written by the adapter that reads the live request.
 */
export function isSemanticRun(run: Run | null): boolean {
  const imported = run?.metadata.otelImport
  return typeof imported === 'object' && imported !== null && !Array.isArray(imported)
}
