// The project config both entry points must honour: the plugin (agentCase, the agent fixture) and a
// plain record() call. Deliberately odd values, so that only this file can explain them.
export default {
  checks: { maxToolCalls: 2, warnAt: 0.5 },
  // USD per million tokens; an explicit price wins over the $0 of a local endpoint.
  prices: { 'gpt-4o-mini': { input: 100, output: 400 } },
}
