import { defineConfig } from 'vitest/config'
import { crashlab } from '../../plugin/index.ts' // in your project: 'crashlab/vitest'

// The refund bot's own Vitest project: `npx vitest run` here replays the committed cassettes;
// `npx crashlab vitest --record run` re-records them against the scripted provider.
// The bot's client is wrapped (wrap(client)), so the MSW interceptor is not needed.
export default defineConfig({
  plugins: [crashlab({ intercept: false })],
  test: { include: ['*.spec.ts'] },
})
