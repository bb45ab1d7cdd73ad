/**
 * `crashlab/testing`: an LLM provider on loopback that answers from a script, for tests and examples
 * with no API key and no network, and for chaos tests of an agent (rate limits, gateway pages,
 * timeouts, cut streams).
 *
 * @example
 * import { startScriptedProvider } from 'crashlab/testing'
 * const provider = await startScriptedProvider({ turns: [{ text: 'Hello!' }] })
 * // OpenAI: `${provider.url}/v1`; Anthropic: provider.url; Gemini: httpOptions: { baseUrl: provider.url }
 * await provider.close()
 */
export { createRng, type Rng } from './create-rng.ts'
export { startScriptedProvider } from './start-scripted-provider.ts'
export type {
  Fault,
  PolicyContext,
  ReceivedRequest,
  ScriptedAnswer,
  ScriptedFaultTurn,
  ScriptedProvider,
  ScriptedProviderOptions,
  ScriptedReply,
  ScriptedToolCall,
  ScriptedTurn,
  ScriptPolicy,
} from './types.ts'
