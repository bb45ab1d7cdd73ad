import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, type TestAttachment } from 'vitest'
import { htmlReportAttachment } from './html-report-attachment.ts'
import { buildFailingRun, PLANTED_SECRET } from './internal/test-fixtures.ts'
import { renderHtmlReport } from './render-html-report.ts'
import { writeHtmlReport } from './write-html-report.ts'

const dir = mkdtempSync(join(tmpdir(), 'crashlab-html-report-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('writeHtmlReport', () => {
  it('writes the redacted report, creating the folder, and leaves no temp file', () => {
    const path = join(dir, 'nested', 'report.html')
    const html = writeHtmlReport(path, buildFailingRun(), { runRef: 'last' })
    const written = readFileSync(path, 'utf8')
    expect(written).toBe(html)
    expect(written).toBe(renderHtmlReport(buildFailingRun(), { runRef: 'last' }))
    expect(written).not.toContain(PLANTED_SECRET)
    expect(readdirSync(join(dir, 'nested'))).toEqual(['report.html'])
  })
})

describe('htmlReportAttachment', () => {
  it('is a Vitest attachment whose bytes are the report', () => {
    const attachment: TestAttachment = htmlReportAttachment(buildFailingRun())
    expect(attachment.contentType).toBe('text/html')
    const text = new TextDecoder().decode(attachment.body as Uint8Array)
    expect(text).toBe(renderHtmlReport(buildFailingRun()))
    expect(text).not.toContain(PLANTED_SECRET)
  })
})
