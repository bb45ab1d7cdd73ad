// `crashlab vitest …` for the fixture-project tests: runs the subcommand as the crashlab bin does.

import { vitest } from '../../src/cli/commands/vitest.ts'
import { runMain } from '../../src/cli/internal/command.ts'

await runMain(vitest)
