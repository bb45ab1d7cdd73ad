import { describe, expect, it } from 'vitest'
import { builtinsByGetter } from '../scripts/builtins-by-getter.ts'

// The CLI's bundle reads Node's built-ins through `process.getBuiltinModule` (scripts/build.ts): each
// form of import rolldown writes, rewritten, and the rewritten code run.
describe('builtinsByGetter', () => {
  it.each([
    ['import { join } from "node:path";', 'const { join } = process.getBuiltinModule("node:path");'],
    [
      'import { readFileSync, statSync as stat } from "node:fs";',
      'const { readFileSync, statSync: stat } = process.getBuiltinModule("node:fs");',
    ],
    ['import net from "node:net";', 'const net = process.getBuiltinModule("node:net");'],
    ['import * as path from "node:path";', 'const path = process.getBuiltinModule("node:path");'],
    [
      'import net, { isIP } from "node:net";',
      'const net = process.getBuiltinModule("node:net"); const { isIP } = net;',
    ],
    [
      'import { setTimeout as sleep } from "node:timers/promises";',
      'const { setTimeout: sleep } = process.getBuiltinModule("node:timers/promises");',
    ],
    ['import "node:module";', ''],
  ])('%s', (line, rewritten) => {
    expect(builtinsByGetter(line)).toBe(rewritten)
  })

  it('leaves other imports and code alone', () => {
    const code =
      'import { x } from "./chunk.js";\nimport { z } from "zod";\nconst s = \'import { a } from "node:fs";\';'
    expect(builtinsByGetter(code)).toBe(code)
  })

  it('gives code that runs: the bindings are the built-ins', async () => {
    const code = builtinsByGetter(
      'import { join as j } from "node:path";\nimport net, { isIP } from "node:net";\nexport const out = [j("a", "b"), isIP("127.0.0.1"), typeof net.connect];',
    )
    const { out } = await import(`data:text/javascript,${encodeURIComponent(code)}`)
    expect(out).toEqual(['a/b', 4, 'function'])
  })
})
