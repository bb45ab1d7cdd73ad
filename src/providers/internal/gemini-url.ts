import { urlPath } from './url-path.ts'

/**
 * Gemini puts the model and the streaming switch in the URL, not the body:
 * `…/models/{model}:generateContent` and `…/models/{model}:streamGenerateContent?alt=sse`, under any
 * base URL (generativelanguage.googleapis.com/v1beta, Vertex AI's `…/publishers/google/models/…`, a
 * proxy). Tuned models live under `tunedModels/` instead.
 */

const MODEL_CALL = /^(.*\/)(models|tunedModels)\/([^/:]+):(generateContent|streamGenerateContent)$/

/** What a Gemini model call's URL says. */
export interface GeminiCall {
  /** The model id (`gemini-2.5-flash`), or `tunedModels/{id}` for a tuned model. */
  model: string
  stream: boolean
}

function toUrl(url: string | URL): URL | undefined {
  if (typeof url !== 'string') return url
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}

/**
 * The model and streaming switch of a model call's URL, or undefined when the URL is another call
 * (`:countTokens`, `:embedContent`, a models list).
 *
 * @example
 * parseGeminiUrl('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse')
 * // { model: 'gemini-2.5-flash', stream: true }
 */
export function parseGeminiUrl(url: string | URL): GeminiCall | undefined {
  const path = urlPath(url)
  const match = path !== undefined && MODEL_CALL.exec(path)
  if (!match) return undefined
  let id = match[3]!
  try {
    id = decodeURIComponent(id)
  } catch {
    // a stray % stays as it was sent
  }
  return {
    model: match[2] === 'tunedModels' ? `tunedModels/${id}` : id,
    stream: match[4] === 'streamGenerateContent',
  }
}

/**
 * The URL of `original` calling `call` instead: the model segment and method swapped, `alt=sse` added
 * for a stream and removed otherwise; host, base path and other query parameters (an API key) kept.
 * An unchanged call gives `original` back byte for byte.
 *
 * @example
 * writeGeminiUrl('https://h/v1beta/models/gemini-2.5-flash:generateContent', { model: 'gemini-2.5-pro', stream: true })
 * // 'https://h/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse'
 */
export function writeGeminiUrl(original: string, call: GeminiCall): string {
  const current = parseGeminiUrl(original)
  if (current && current.model === call.model && current.stream === call.stream) return original
  const url = toUrl(original)
  if (!url) return original
  const match = MODEL_CALL.exec(url.pathname.replace(/\/+$/, ''))
  const base = match ? match[1]! : url.pathname.replace(/\/*$/, '/')
  const model = call.model.startsWith('tunedModels/')
    ? `tunedModels/${encodeURIComponent(call.model.slice('tunedModels/'.length))}`
    : `models/${encodeURIComponent(call.model)}`
  url.pathname = `${base}${model}:${call.stream ? 'streamGenerateContent' : 'generateContent'}`
  if (call.stream) url.searchParams.set('alt', 'sse')
  else url.searchParams.delete('alt')
  return url.toString()
}
