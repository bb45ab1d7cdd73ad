import { defineCommand } from 'citty'
import { VERSION } from '../version.ts'
import { benchCommand } from './commands/bench.ts'
import { check } from './commands/check.ts'
import { config } from './commands/config.ts'
import { diagnoseCommand } from './commands/diagnose.ts'
import { diff } from './commands/diff.ts'
import { exportRun } from './commands/export.ts'
import { exportTestCommand } from './commands/export-test.ts'
import { fixCommand } from './commands/fix.ts'
import { forkCommand } from './commands/fork.ts'
import { importRun } from './commands/import.ts'
import { inspect } from './commands/inspect.ts'
import { ls } from './commands/ls.ts'
import { redact } from './commands/redact.ts'
import { replay } from './commands/replay.ts'
import { report } from './commands/report.ts'
import { scan } from './commands/scan.ts'
import { show } from './commands/show.ts'
import { validate } from './commands/validate.ts'
import { verifyCommand } from './commands/verify.ts'
import { vitest } from './commands/vitest.ts'
import { strictCommands } from './internal/strict-commands.ts'

/** The root `crashlab` command and its subcommands. */
export const main = defineCommand({
  meta: {
    name: 'crashlab',
    version: VERSION,
    description: 'Crash-test AI agents: record, replay offline, grade, diagnose and fix agent runs.',
  },
  // Every command rejects flags it does not declare, except `vitest`, which passes them on to Vitest;
  // and none lets a stack trace reach the user (src/cli/internal/strict-commands.ts).
  subCommands: strictCommands(
    {
      ls,
      show,
      check,
      export: exportRun,
      import: importRun,
      replay,
      fork: forkCommand,
      diff,
      diagnose: diagnoseCommand,
      fix: fixCommand,
      verify: verifyCommand,
      'export-test': exportTestCommand,
      report,
      validate,
      inspect,
      scan,
      redact,
      config,
      vitest,
      bench: benchCommand,
    },
    { passThrough: ['vitest'] },
  ),
})
