import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  BatchTraceProcessor,
  getGlobalTraceProvider,
  OpenAITracingExporter,
  setTraceProcessors,
  setTracingDisabled,
} from '@openai/agents'
import { startScriptedProvider } from '../../src/testing/index.ts'
import { agentsOrderBot } from '../fixtures/otel-replay/agents-order-bot.ts'

/**
 * The Agents SDK order bot run on Chat Completions (the scripted provider) with the SDK's own trace
 * exporter pointed at an ingest server on loopback: the payloads it posts. The provider is closed
 * before they come back. Sets `ORDER_BOT_BASE_URL` to the provider's URL.
 */
export async function agentsPayloads(question: string): Promise<unknown[]> {
  const bodies: unknown[] = []
  const ingest = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      bodies.push(JSON.parse(body))
      res.writeHead(200).end('{}')
    })
  })
  await new Promise<void>((done) => ingest.listen(0, '127.0.0.1', done))
  const { port } = ingest.address() as AddressInfo
  setTracingDisabled(false)
  const exporter = new OpenAITracingExporter({
    endpoint: `http://127.0.0.1:${port}/v1/traces/ingest`,
    apiKey: 'k',
  })
  setTraceProcessors([new BatchTraceProcessor(exporter, { scheduleDelay: 600_000 })])
  const provider = await startScriptedProvider({
    policy: (request) =>
      request.messages.at(-1)?.role === 'tool'
        ? { text: 'A17 shipped on Monday.' }
        : { toolCalls: [{ name: 'get_order', args: { order_id: 'A17' } }] },
  })
  process.env.ORDER_BOT_BASE_URL = `${provider.url}/v1`
  try {
    await agentsOrderBot(question)
    await getGlobalTraceProvider().forceFlush()
    return bodies
  } finally {
    setTracingDisabled(true)
    await provider.close()
    ingest.close()
  }
}
