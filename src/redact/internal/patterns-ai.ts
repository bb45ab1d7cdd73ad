import type { PatternRule } from '../types.ts'

/**
 * Keys of model providers and AI services: the secrets an agent test is most likely to carry, since the
 * recorder sees every request the agent makes. Anthropic comes before OpenAI because both start `sk-`.
 */
export const AI_PATTERNS: readonly PatternRule[] = [
  { id: 'anthropic-key', hint: 'sk-ant-', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/ },
  {
    id: 'openai-key',
    hint: 'sk-',
    // `sk-…`, `sk-proj-…`, `sk-svcacct-…`, `sk-admin-…`; OpenRouter (`sk-or-v1-`) and DeepSeek use the
    // same shape. 16+ characters after `sk-`, as in the AgentCase reference baseline.
    pattern: /\bsk-[A-Za-z0-9_-]{16,}/,
  },
  { id: 'groq-key', hint: 'gsk_', pattern: /\bgsk_[A-Za-z0-9]{20,}/ },
  { id: 'xai-key', hint: 'xai-', pattern: /\bxai-[A-Za-z0-9]{40,}/ },
  { id: 'huggingface-token', hint: 'hf_', pattern: /\bhf_[A-Za-z0-9]{30,}/ },
  { id: 'replicate-token', hint: 'r8_', pattern: /\br8_[A-Za-z0-9]{30,}/ },
  { id: 'perplexity-key', hint: 'pplx-', pattern: /\bpplx-[A-Za-z0-9]{40,}/ },
  { id: 'langsmith-key', hint: 'lsv2_', pattern: /\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b/ },
  { id: 'pinecone-key', hint: 'pcsk_', pattern: /\bpcsk_[A-Za-z0-9_]{40,}/ },
  { id: 'tavily-key', hint: 'tvly-', pattern: /\btvly-(?:dev-|prod-)?[A-Za-z0-9]{24,}/ },
  {
    id: 'google-api-key',
    hint: 'AIza',
    // Gemini and every Google API key: `AIza` and 35 more characters, exactly.
    pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/,
  },
  { id: 'google-oauth-token', hint: 'ya29.', pattern: /\bya29\.[A-Za-z0-9_-]{20,}/ },
  { id: 'google-oauth-secret', hint: 'GOCSPX-', pattern: /\bGOCSPX-[A-Za-z0-9_-]{28}/ },
  { id: 'databricks-token', hint: 'dapi', pattern: /\bdapi[a-f0-9]{32}(?:-\d+)?\b/ },
]
