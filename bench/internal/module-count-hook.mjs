/**
 * Counts the modules a Node process loads, ES modules and CommonJS alike (a synchronous `load` hook
 * sees both). Loaded with `node --import`, also in Vitest's workers through `NODE_OPTIONS`. Each module
 * is appended as it loads, as a line `<pid> <url>`, to the file named by `MODULE_COUNT_OUT`: a worker
 * that Vitest ends with a signal has no exit to write at.
 *
 *   MODULE_COUNT_OUT=/tmp/mods.txt node --import ./bench/internal/module-count-hook.mjs -e "await import('crashlab')"
 */
import { appendFileSync } from 'node:fs'
import { registerHooks } from 'node:module'

const out = process.env.MODULE_COUNT_OUT
if (out) {
  const seen = new Set()
  appendFileSync(out, `${process.pid} argv:${process.argv.slice(1).join(' ')}\n`)
  registerHooks({
    load(url, context, next) {
      if (!seen.has(url)) {
        seen.add(url)
        appendFileSync(out, `${process.pid} ${url}\n`)
      }
      return next(url, context)
    },
  })
}
