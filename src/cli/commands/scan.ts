import { loadConfig } from '../../config/load-config.ts'
import { createRedactor, formatScanReport, scanPaths } from '../../redact/index.ts'
import { defineCommand } from '../internal/command.ts'
import { reportError } from '../internal/report-error.ts'

/** `crashlab scan <paths...>`: exit 1 when any cassette, baseline or export holds a secret-like string. */
export const scan = defineCommand({
  meta: {
    name: 'scan',
    description: 'Scan cassettes, baselines and exports for leaked secrets (exit 1 on any finding)',
  },
  args: {
    paths: { type: 'positional', description: 'files or folders to scan', required: true },
    json: { type: 'boolean', description: 'print the findings as JSON' },
  },
  async run({ args }) {
    // The first positional is `paths`; all of them are in `_`.
    const paths = args._.length > 0 ? args._ : [args.paths]
    try {
      // The config file's redaction rules define secrets too: what is redacted on write is looked for here.
      const { config } = await loadConfig()
      const redactor = config.redaction ? createRedactor(config.redaction) : undefined
      const report = await scanPaths(paths, redactor ? { redactor } : {})
      console.log(args.json ? JSON.stringify(report, null, 2) : formatScanReport(report))
      if (report.findings.length > 0) process.exitCode = 1
    } catch (err) {
      reportError(err)
    }
  },
})
