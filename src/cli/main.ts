import { VERSION } from '../version.ts'
import { defineCommand } from './internal/command.ts'
import { strictCommands } from './internal/strict-commands.ts'

/** The root `crashlab` command and its subcommands, each loaded when it runs (`--version` loads none). */
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
      ls: () => import('./commands/ls.ts').then((m) => m.ls),
      show: () => import('./commands/show.ts').then((m) => m.show),
      check: () => import('./commands/check.ts').then((m) => m.check),
      export: () => import('./commands/export.ts').then((m) => m.exportRun),
      import: () => import('./commands/import.ts').then((m) => m.importRun),
      receive: () => import('./commands/receive.ts').then((m) => m.receive),
      replay: () => import('./commands/replay.ts').then((m) => m.replay),
      fork: () => import('./commands/fork.ts').then((m) => m.forkCommand),
      'crash-test': () => import('./commands/crash-test.ts').then((m) => m.crashTestCommand),
      diff: () => import('./commands/diff.ts').then((m) => m.diff),
      diagnose: () => import('./commands/diagnose.ts').then((m) => m.diagnoseCommand),
      fix: () => import('./commands/fix.ts').then((m) => m.fixCommand),
      verify: () => import('./commands/verify.ts').then((m) => m.verifyCommand),
      'export-test': () => import('./commands/export-test.ts').then((m) => m.exportTestCommand),
      report: () => import('./commands/report.ts').then((m) => m.report),
      validate: () => import('./commands/validate.ts').then((m) => m.validate),
      inspect: () => import('./commands/inspect.ts').then((m) => m.inspect),
      scan: () => import('./commands/scan.ts').then((m) => m.scan),
      redact: () => import('./commands/redact.ts').then((m) => m.redact),
      config: () => import('./commands/config.ts').then((m) => m.config),
      vitest: () => import('./commands/vitest.ts').then((m) => m.vitest),
      bench: () => import('./commands/bench.ts').then((m) => m.benchCommand),
    },
    { passThrough: ['vitest'] },
  ),
})
