import { writeFileAtomic } from '../case/atomic-write.ts'
import type { Run } from '../case/schema/run.ts'
import { type HtmlReportOptions, renderHtmlReport } from './render-html-report.ts'

/**
 * Writes the HTML report of `run` to `path` (`crashlab report <run> --html report.html`): redacted and
 * escaped by `renderHtmlReport`, written atomically (a reader sees the old file or the new one), the
 * folder created when missing. Returns the HTML written.
 *
 * @example
 * writeHtmlReport('artifacts/refund-bot.html', run, { runRef: 'last' })
 */
export function writeHtmlReport(path: string, run: Run, options: HtmlReportOptions = {}): string {
  const html = renderHtmlReport(run, options)
  writeFileAtomic(path, html)
  return html
}
