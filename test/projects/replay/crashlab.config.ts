// Read by the recording and by every replay alike: a two-call run goes over this budget, a finding
// the exported test asserts.
export default {
  checks: { maxLlmCalls: 1 },
}
