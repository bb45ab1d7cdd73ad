import { loadConfig } from '../../config/load-config.ts'
import { defineCommand } from '../internal/command.ts'
import { reportError } from '../internal/report-error.ts'

/**
 * `crashlab config`: finds, loads and validates the project config file as every entry point does, and
 * prints what it says (functions and RegExps shown by name), or the bad keys with exit code 1.
 */
export const config = defineCommand({
  meta: {
    name: 'config',
    description: 'Show the project config file (crashlab.config.ts) crashlab uses, validated',
  },
  args: {
    file: { type: 'string', description: 'read this config file instead of searching for one' },
    json: { type: 'boolean', description: 'print the config as JSON' },
  },
  async run({ args }) {
    try {
      const loaded = await loadConfig(args.file ? { file: args.file } : {})
      const shown = JSON.parse(JSON.stringify(loaded.config, replacer)) as unknown
      if (args.json) {
        console.log(JSON.stringify({ path: loaded.path, config: shown }, null, 2))
        return
      }
      if (!loaded.path) {
        console.log(
          'No config file: crashlab uses its defaults. Create crashlab.config.ts (see docs/config.md) to set checks, prices, redaction rules and the store.',
        )
        return
      }
      console.log(`${loaded.path}\n${JSON.stringify(shown, null, 2)}`)
    } catch (err) {
      reportError(err)
    }
  },
})

function replacer(_key: string, value: unknown): unknown {
  if (typeof value === 'function') return `[function ${value.name || 'anonymous'}]`
  if (value instanceof RegExp) return String(value)
  return value
}
