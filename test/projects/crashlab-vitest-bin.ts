// `crashlab vitest …` for the fixture-project tests: runs the subcommand as the crashlab bin does.
import { runMain } from 'citty'
import { vitest } from '../../src/cli/commands/vitest.ts'

await runMain(vitest)
