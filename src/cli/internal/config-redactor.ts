import { loadConfig } from '../../config/load-config.ts'
import { createRedactor } from '../../redact/create-redactor.ts'
import type { Redactor } from '../../redact/types.ts'

/** The redactor of the project config file (its rules added to the defaults); undefined without rules. */
export async function configRedactor(): Promise<Redactor | undefined> {
  const { config } = await loadConfig()
  return config.redaction ? createRedactor(config.redaction) : undefined
}
