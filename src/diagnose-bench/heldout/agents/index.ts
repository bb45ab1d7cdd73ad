/** The held-out agents: five domains over three wire APIs, none of which the diagnoser was tuned on. */
import type { HeldoutAgent } from '../types.ts'
import { bankTransferAgent } from './bank-transfer.ts'
import { itHelpdeskAgent } from './it-helpdesk.ts'
import { pharmacyRefillAgent } from './pharmacy-refill.ts'
import { visaCheckerAgent } from './visa-checker.ts'
import { warehouseInventoryAgent } from './warehouse-inventory.ts'

export { bankTransferAgent } from './bank-transfer.ts'
export { itHelpdeskAgent } from './it-helpdesk.ts'
export { pharmacyRefillAgent } from './pharmacy-refill.ts'
export { visaCheckerAgent } from './visa-checker.ts'
export { warehouseInventoryAgent } from './warehouse-inventory.ts'

/**
 * Every held-out agent: two on OpenAI chat completions, two on OpenAI Responses, one on Anthropic Messages.
 *
 * @example
 * HELDOUT_AGENTS.map((a) => `${a.name} (${a.wire})`)
 */
export const HELDOUT_AGENTS: readonly HeldoutAgent[] = [
  pharmacyRefillAgent,
  bankTransferAgent,
  itHelpdeskAgent,
  visaCheckerAgent,
  warehouseInventoryAgent,
]
