import type { ScanReport } from './scan-types.ts'

/**
 * Renders a scan report for people: findings grouped by file, each with its location (JSON Pointer or
 * line), the rule and the masked excerpt, then the next step. Plain text, no colour: the CLI decides.
 *
 * @example
 * console.log(formatScanReport(await scanPaths(['__cassettes__'])))
 * // [crashlab] scan: 1 possible secret in 1 of 12 files
 * //
 * //   __cassettes__/refund.cassette.json
 * //     ✖ openai-key at /run/steps/0/request/wire/headers/x-debug  sk-p…(51)
 */
export function formatScanReport(report: ScanReport): string {
  const { files, findings } = report
  const fileWord = files === 1 ? 'file' : 'files'
  if (findings.length === 0) return `[crashlab] scan: no secrets found in ${files} ${fileWord}`
  const byFile = new Map<string, typeof findings>()
  for (const f of findings) {
    const list = byFile.get(f.file) ?? []
    list.push(f)
    byFile.set(f.file, list)
  }
  const noun = findings.length === 1 ? 'possible secret' : 'possible secrets'
  const lines = [`[crashlab] scan: ${findings.length} ${noun} in ${byFile.size} of ${files} ${fileWord}`]
  for (const [file, list] of byFile) {
    lines.push('', `  ${file}`)
    for (const f of list) {
      let where = f.pointer !== null ? `at ${f.pointer || '/'}` : ''
      if (f.embeddedPointer !== undefined)
        where += ` (inside the JSON string, at ${f.embeddedPointer || '/'})`
      if (f.line !== undefined) where += `${where ? ', ' : 'at '}line ${f.line}`
      lines.push(`    ✖ ${f.rule} ${where}  ${f.excerpt}`.replace(/ {3,}/, '  '))
    }
  }
  lines.push(
    '',
    '  `crashlab redact <paths>` rewrites these files under the current rules (then rotate what was committed).',
    '  A format no rule knows: add one with redaction.addPattern / redaction.addKey, then run it again. A value',
    '  random by design at a known location: add it to the scan allow-list.',
  )
  return lines.join('\n')
}
