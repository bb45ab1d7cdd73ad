// The agent of `crashlab replay`'s offline case: a model call and a call to another host, neither of
// which its recording holds (the recording has no step: say, a model call that escaped capture).
import OpenAI from 'openai'

export interface Targets {
  /** The model's base URL (a scripted provider on loopback). */
  modelURL: string
  /** Another server, on an address the parent test treats as remote. */
  remoteURL: string
}

/** Asks the model, then reports to the other host; answers what came back. */
export async function askAndReport(input: Targets): Promise<string[]> {
  const client = new OpenAI({ apiKey: 'sk-fixture-not-a-key', baseURL: input.modelURL, maxRetries: 0 })
  const answer = await client.chat.completions
    .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
    .then(
      (r) => r.choices[0]?.message.content ?? '',
      () => 'model failed',
    )
  const report = await fetch(`${input.remoteURL}/report`).then(
    (r) => `report ${r.status}`,
    () => 'report failed',
  )
  return [answer, report]
}
