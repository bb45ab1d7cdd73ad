import { defineConfig } from 'vitest/config'
import { crashlab } from '../../../plugin/index.ts'

// No `hosts`: the scripted provider listens on 127.0.0.1 on a port picked at each start, as a local
// model server or a gateway would, and crashlab recognises the model calls by their wire shape.
export default defineConfig({
  plugins: [crashlab()],
  test: { include: ['**/*.spec.ts'], testTimeout: 30_000 },
})
