import { tool } from 'crashlab'

// JavaScript, as a user's project may be: the repository's type check cannot resolve the installed
// `crashlab` package from inside the repository, so this project stays out of it.

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'get_forecast',
      description: 'The forecast for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
]

/** How often the tool ran (a replay serves it from the cassette instead). */
export const forecasts = { calls: 0 }

const getForecast = tool(
  (args) => {
    forecasts.calls++
    return { city: args.city, sky: 'rain', high_c: 14 }
  },
  { name: 'get_forecast', sideEffects: false },
)

/**
 * A plain OpenAI chat tool loop: asks the model, runs the tool it calls, and feeds the result back
 * until the model answers in text.
 *
 * @param {import('openai').default} client
 * @param {string} input
 * @returns {Promise<string>}
 */
export async function weatherBot(client, input) {
  const messages = [
    { role: 'system', content: 'Answer weather questions with get_forecast.' },
    { role: 'user', content: input },
  ]
  for (let step = 0; step < 4; step++) {
    const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages, tools: TOOLS })
    const message = completion.choices[0]?.message
    if (!message) throw new Error('no choice in the completion')
    messages.push(message)
    if (!message.tool_calls?.length) return message.content ?? ''
    for (const call of message.tool_calls) {
      const result = await getForecast(JSON.parse(call.function.arguments))
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) })
    }
  }
  throw new Error('the model kept calling tools')
}
