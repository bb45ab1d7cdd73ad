import type { PatternRule } from '../types.ts'
import { isPlaceholder, looksRandom, randomAfter } from './validators.ts'

/**
 * Keys of model providers and AI services: the secrets an agent test is most likely to carry, since the
 * recorder sees every request the agent makes. Formats that share a prefix come most specific first
 * (Anthropic, OpenRouter and Langfuse before OpenAI's `sk-`). Each validator strips the documented
 * prefix and asks the rest to look random, so `sk-button-primary-large` (a CSS class) and
 * `gsk_your_groq_key_here` stay as they are.
 */
export const AI_PATTERNS: readonly PatternRule[] = [
  {
    id: 'anthropic-key',
    hint: 'sk-ant-',
    // `sk-ant-api03-…`, `sk-ant-admin01-…`, `sk-ant-oat01-…` (OAuth): 93 characters and `AA` after the kind.
    pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/,
    // The prefix is unambiguous: anything but a placeholder after it is a key (a hand-made test key too).
    validate: (secret) => !isPlaceholder(secret.replace(/^sk-ant-(?:[a-z]+\d\d-)?/, '')),
  },
  {
    id: 'openrouter-key',
    hint: 'sk-or-',
    pattern: /\bsk-or-v1-[a-f0-9]{64}\b/,
    validate: randomAfter(/^sk-or-v1-/),
  },
  {
    id: 'langfuse-secret-key',
    hint: 'sk-lf-',
    pattern: /\bsk-lf-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/,
    validate: randomAfter(/^sk-lf-/),
  },
  {
    id: 'openai-key',
    hint: 'sk-',
    // `sk-…`, `sk-proj-…`, `sk-svcacct-…`, `sk-admin-…`; DeepSeek (`sk-` and 32 hex) and other
    // OpenAI-compatible services use the same shape. 16+ characters after `sk-`, as in the AgentCase
    // reference baseline.
    pattern: /\bsk-[A-Za-z0-9_-]{16,}/,
    // After a project, service-account or admin prefix anything but a placeholder is a key; a bare
    // `sk-` must be followed by something random (`sk-button-primary-large` is a CSS class).
    validate: (secret) => {
      const kind = /^sk-(?:proj|svcacct|admin)-/.exec(secret)
      if (kind) return !isPlaceholder(secret.slice(kind[0].length))
      return randomAfter(/^sk-(?:None-|user-)?/)(secret)
    },
  },
  {
    id: 'elevenlabs-key',
    hint: 'sk_',
    pattern: /\bsk_[a-f0-9]{48}\b/,
    validate: randomAfter(/^sk_/),
  },
  {
    id: 'cerebras-key',
    hint: 'csk-',
    pattern: /\bcsk-[A-Za-z0-9]{32,}\b/,
    validate: randomAfter(/^csk-/),
  },
  { id: 'groq-key', hint: 'gsk_', pattern: /\bgsk_[A-Za-z0-9]{20,}/, validate: randomAfter(/^gsk_/) },
  { id: 'xai-key', hint: 'xai-', pattern: /\bxai-[A-Za-z0-9]{40,}/, validate: randomAfter(/^xai-/) },
  {
    id: 'huggingface-token',
    hint: ['hf_', 'api_org_'],
    pattern: /\b(?:hf_|api_org_)[A-Za-z0-9]{30,}/,
    validate: randomAfter(/^(?:hf_|api_org_)/),
  },
  { id: 'replicate-token', hint: 'r8_', pattern: /\br8_[A-Za-z0-9]{30,}/, validate: randomAfter(/^r8_/) },
  {
    id: 'perplexity-key',
    hint: 'pplx-',
    pattern: /\bpplx-[A-Za-z0-9]{40,}/,
    validate: randomAfter(/^pplx-/),
  },
  {
    id: 'fireworks-key',
    hint: 'fw_',
    pattern: /\bfw_[A-Za-z0-9]{20,}\b/,
    validate: randomAfter(/^fw_/),
  },
  {
    id: 'together-key',
    hint: 'tgp_v1_',
    pattern: /\btgp_v1_[A-Za-z0-9_-]{30,}/,
    validate: randomAfter(/^tgp_v1_/),
  },
  { id: 'jina-key', hint: 'jina_', pattern: /\bjina_[A-Za-z0-9_-]{40,}/, validate: randomAfter(/^jina_/) },
  { id: 'e2b-key', hint: 'e2b_', pattern: /\be2b_[a-f0-9]{40}\b/, validate: randomAfter(/^e2b_/) },
  { id: 'firecrawl-key', hint: 'fc-', pattern: /\bfc-[a-f0-9]{32}\b/, validate: randomAfter(/^fc-/) },
  {
    id: 'langsmith-key',
    hint: 'lsv2_',
    pattern: /\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b/,
    validate: randomAfter(/^lsv2_(?:pt|sk)_/),
  },
  {
    id: 'pinecone-key',
    hint: 'pcsk_',
    pattern: /\bpcsk_[A-Za-z0-9_]{40,}/,
    validate: randomAfter(/^pcsk_/),
  },
  {
    id: 'tavily-key',
    hint: 'tvly-',
    pattern: /\btvly-(?:dev-|prod-)?[A-Za-z0-9]{24,}/,
    validate: randomAfter(/^tvly-(?:dev-|prod-)?/),
  },
  {
    id: 'aws-bedrock-key',
    hint: 'ABSKQmVkcm9ja0FQSUtleS',
    // Long-term Bedrock API keys: `ABSK` and base64 of `BedrockAPIKey-…`.
    pattern: /\bABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{40,}={0,2}/,
    validate: randomAfter(/^ABSKQmVkcm9ja0FQSUtleS/),
  },
  {
    id: 'google-api-key',
    hint: 'AIza',
    // Gemini and every Google API key: `AIza` and 35 more characters, exactly.
    pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/,
    validate: randomAfter(/^AIza(?:Sy)?/),
  },
  {
    id: 'google-oauth-token',
    hint: 'ya29.',
    pattern: /\bya29\.[A-Za-z0-9_-]{20,}/,
    validate: randomAfter(/^ya29\.(?:a0)?/),
  },
  {
    id: 'google-refresh-token',
    hint: '1//0',
    // OAuth refresh tokens Google issues: `1//0` and about 100 base64url characters. Not after a word
    // character or a slash, so a path `a1//0…` is not one.
    pattern: /(?<![A-Za-z0-9_/])1\/\/0[A-Za-z0-9_-]{40,}/,
    validate: randomAfter(/^1\/\/0/),
  },
  {
    id: 'google-oauth-secret',
    hint: 'GOCSPX-',
    pattern: /\bGOCSPX-[A-Za-z0-9_-]{28}/,
    validate: randomAfter(/^GOCSPX-/),
  },
  {
    id: 'databricks-token',
    hint: 'dapi',
    pattern: /\bdapi[a-f0-9]{32}(?:-\d+)?\b/,
    validate: (s) => !isPlaceholder(s) && looksRandom(s.slice(4, 36)),
  },
]
