/**
 * Reports of one run, for people: `renderTextReport` for a terminal (`crashlab report`) and
 * `renderHtmlReport` for one self-contained HTML file (`writeHtmlReport` writes it, `htmlReportAttachment`
 * hands it to a Vitest annotation). All of them redact the run first and mark the step `failingStepOf` picks.
 */

export { type FailingStep, failingStepOf } from './failing-step.ts'
export { htmlReportAttachment } from './html-report-attachment.ts'
export type { ReportAttempt } from './internal/fix-views.ts'
export { type HtmlReportOptions, renderHtmlReport } from './render-html-report.ts'
export { renderTextReport, type TextReportOptions } from './render-text-report.ts'
export { writeHtmlReport } from './write-html-report.ts'
