import { defineCommand } from 'citty'
import { VERSION } from '../version.ts'
import { config } from './commands/config.ts'
import { inspect } from './commands/inspect.ts'
import { scan } from './commands/scan.ts'
import { validate } from './commands/validate.ts'
import { vitest } from './commands/vitest.ts'

/** The root `crashlab` command and its subcommands. */
export const main = defineCommand({
  meta: {
    name: 'crashlab',
    version: VERSION,
    description: 'Crash-test AI agents: record, replay offline, grade, diagnose and fix agent runs.',
  },
  subCommands: { validate, inspect, scan, config, vitest },
})
