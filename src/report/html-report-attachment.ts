import type { Run } from '../case/schema/run.ts'
import { type HtmlReportOptions, renderHtmlReport } from './render-html-report.ts'

/**
 * The HTML report as a test attachment, in the shape Vitest's `annotate(message, type, attachment)`
 * takes, so that a failing agent test shows its report in the Vitest UI and the HTML reporter. The body
 * is bytes: Vitest reads a string body as base64 unless told otherwise, and bytes need no such flag.
 *
 * @example
 * await ctx.annotate('crashlab report', 'crashlab', htmlReportAttachment(run, { runRef: run.id }))
 */
export function htmlReportAttachment(
  run: Run,
  options: HtmlReportOptions = {},
): { contentType: 'text/html'; body: Uint8Array } {
  return { contentType: 'text/html', body: new TextEncoder().encode(renderHtmlReport(run, options)) }
}
