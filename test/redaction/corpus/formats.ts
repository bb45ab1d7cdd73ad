import { AI_CLOUD_FORMATS } from './formats-ai-cloud.ts'
import { CONTEXT_FORMATS } from './formats-context.ts'
import { SERVICE_FORMATS } from './formats-services.ts'
import type { SecretFormat } from './types.ts'

/**
 * The main secret corpus: every format the leak tests assert on (0 leaks). Built from each provider's
 * documented format, independently of crashlab's own rule tables.
 */
export const MAIN_FORMATS: readonly SecretFormat[] = [
  ...AI_CLOUD_FORMATS,
  ...SERVICE_FORMATS,
  ...CONTEXT_FORMATS,
]
