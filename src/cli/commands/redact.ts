import { pc } from '../../colors.ts'
import { type RedactFilesReport, redactFiles } from '../../redact-files/index.ts'
import { defineCommand } from '../internal/command.ts'
import { configRedactor } from '../internal/config-redactor.ts'
import { reportError } from '../internal/report-error.ts'

function rules(removed: Record<string, number>): string {
  return Object.entries(removed)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([rule, n]) => (n > 1 ? `${rule} ×${n}` : rule))
    .join(', ')
}

function format(report: RedactFilesReport): string {
  const lines: string[] = []
  const verb = report.checked ? 'would rewrite' : 'rewrote'
  for (const f of report.files) {
    const n = Object.values(f.removed).reduce((a, b) => a + b, 0)
    if (f.status === 'rewritten')
      lines.push(`${pc.yellow(verb)} ${f.path}: ${n} removed (${rules(f.removed)})`)
    else if (f.status === 'error') lines.push(`${pc.red('error')} ${f.path}: ${f.reason}`)
    else if (f.status === 'skipped') lines.push(`${pc.dim('skipped')} ${f.path}: ${f.reason}`)
  }
  const rewritten = report.files.filter((f) => f.status === 'rewritten').length
  const errors = report.files.filter((f) => f.status === 'error').length
  lines.push(
    `${report.files.length} files read, ${rewritten} ${report.checked ? 'to rewrite' : 'rewritten'}, ` +
      `${report.removed} values ${report.checked ? 'to remove' : 'removed'}${errors ? `, ${errors} failed` : ''}`,
  )
  if (report.removed > 0) {
    lines.push(
      report.checked
        ? 'Run `crashlab redact` with the same paths (without --check) to rewrite them.'
        : 'A secret that was committed stays in the git history: rotate it with its provider.',
    )
  }
  return lines.join('\n')
}

/**
 * `crashlab redact <paths...> [--check] [--json]`: rewrites cassettes, baselines and exports under
 * today's redaction rules (the defaults plus the config file's), atomically, and reports what it removed.
 */
export const redact = defineCommand({
  meta: {
    name: 'redact',
    description:
      'Rewrite cassettes, baselines and exports under the current redaction rules (--check: only report)',
  },
  args: {
    paths: { type: 'positional', description: 'files or folders to rewrite', required: true },
    check: { type: 'boolean', description: 'write nothing; exit 1 when a file would change' },
    json: { type: 'boolean', description: 'print the report as JSON' },
  },
  async run({ args }) {
    const paths = args._.length > 0 ? args._ : [args.paths]
    try {
      const redactor = await configRedactor()
      const report = await redactFiles(paths, {
        check: args.check === true,
        ...(redactor ? { redactor } : {}),
      })
      console.log(args.json ? JSON.stringify(report, null, 2) : format(report))
      if (report.files.some((f) => f.status === 'error') || (report.checked && report.removed > 0))
        process.exitCode = 1
    } catch (err) {
      reportError(err)
    }
  },
})
