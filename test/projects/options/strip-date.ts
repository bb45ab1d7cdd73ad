import type { NormalizedRequest } from '../../../src/index.ts'

const DATE = /\d{4}-\d{2}-\d{2}/g

/** Today's date in the system prompt changes every day, not what the model is asked. */
export default function stripDate(request: NormalizedRequest): NormalizedRequest {
  return {
    ...request,
    system: request.system.map((p) =>
      p.type === 'text' ? { ...p, text: p.text.replace(DATE, '<date>') } : p,
    ),
  }
}
