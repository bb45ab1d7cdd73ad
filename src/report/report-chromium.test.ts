import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Run } from '../case/schema/run.ts'
import { failingStepOf } from './failing-step.ts'
import { recordFailingRun } from './internal/test-failing-run.ts'
import { PLANTED_SECRET } from './internal/test-fixtures.ts'
import { type CrashGridCell, renderHtmlReport } from './render-html-report.ts'

/**
 * The HTML report in a real browser: Debian's `chromium`, driven by playwright-core. `.ci/run` installs
 * it; without it this test fails (a report nobody opened is not tested), unless the skip is asked for
 * explicitly with CRASHLAB_SKIP_BROWSER=1.
 */
const CHROMIUM = '/usr/bin/chromium'
const ARTIFACTS = resolve(import.meta.dirname, '../../artifacts')
const skip = process.env.CRASHLAB_SKIP_BROWSER === '1'

// The project compiles without the DOM library; these are the few browser shapes the page code below uses.
interface DomElement {
  tagName: string
  open?: boolean
  parentElement: DomElement | null
  getBoundingClientRect(): { top: number }
}
interface DomWindow {
  innerHeight: number
  document: { body: DomElement }
  getComputedStyle(el: DomElement): { borderLeftWidth: string; backgroundColor: string }
}

describe.skipIf(skip)('the HTML report of a failing run, in headless Chromium', () => {
  let browser: Browser | undefined
  let run: Run
  let file: string
  const dir = mkdtempSync(join(tmpdir(), 'crashlab-report-'))

  beforeAll(async () => {
    run = await recordFailingRun()
    file = join(dir, 'report.html')
    writeFileSync(file, renderHtmlReport(run))
    if (existsSync(CHROMIUM)) {
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] })
    }
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  /** A new page, or the reason there is none: each browser test fails on its own, naming the fix. */
  async function newPage(options: { colorScheme?: 'light' | 'dark' } = {}): Promise<Page> {
    if (!browser) {
      throw new Error(
        `[crashlab] ${CHROMIUM} not found: this test opens the HTML report in Chromium. Install it with ` +
          '`apt-get install -y --no-install-recommends chromium` (.ci/run does), or set CRASHLAB_SKIP_BROWSER=1 to skip it.',
      )
    }
    return browser.newPage({ viewport: { width: 1280, height: 900 }, ...options })
  }

  it('was given a run that really failed at a tool step', () => {
    expect(run.steps.map((s) => (s.type === 'tool' ? s.name : s.type))).toEqual([
      'llm',
      'get_order',
      'llm',
      'issue_refund',
      'llm',
    ])
    expect(run.outcome).toBe('fail')
    expect(run.steps[3]?.error?.name).toBe('RangeError')
    expect(failingStepOf(run)?.index).toBe(3)
  })

  it('marks the failing step, visibly, and loads nothing but the file', async () => {
    const page = await newPage()
    const requests: string[] = []
    const dialogs: string[] = []
    page.on('request', (request) => requests.push(request.url()))
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message())
      void dialog.dismiss()
    })
    const url = pathToFileURL(file).href
    await page.goto(url)

    expect(await page.locator('script').count()).toBe(0)
    const failing = page.locator('[data-failing="true"]')
    expect(await failing.count()).toBe(1)
    expect(await failing.getAttribute('id')).toBe('step-3')
    const badge = failing.locator('.badge.failing')
    expect(await badge.textContent()).toBe('failing step')
    expect(await badge.isVisible()).toBe(true)
    expect(await failing.textContent()).toContain(
      'RangeError: amount 490 exceeds the order total 49 <script>alert(1)</script>',
    )

    // The link at the top of the page leads to it, and it is on screen, not inside a closed <details>.
    await page.click('#failing-callout a')
    expect(new URL(page.url()).hash).toBe('#step-3')
    expect(await failing.isVisible()).toBe(true)
    const box = await failing.boundingBox()
    expect(box?.width).toBeGreaterThan(100)
    expect(box?.height).toBeGreaterThan(20)
    const placement = await failing.evaluate((node) => {
      const el = node as unknown as DomElement
      const win = globalThis as unknown as DomWindow
      let closed = false
      for (let e = el.parentElement; e; e = e.parentElement)
        if (e.tagName === 'DETAILS' && !e.open) closed = true
      const r = el.getBoundingClientRect()
      return { closed, onScreen: r.top >= 0 && r.top < win.innerHeight }
    })
    expect(placement).toEqual({ closed: false, onScreen: true })
    expect(
      await failing.evaluate(
        (el) =>
          (globalThis as unknown as DomWindow).getComputedStyle(el as unknown as DomElement).borderLeftWidth,
      ),
    ).toBe('6px')
    await page.screenshot({ path: join(mkdirOnce(ARTIFACTS), 'report-failing-step.png') })

    // Markup from the prompt and the tool results is text: no element, no dialog.
    expect(await page.locator('img').count()).toBe(0)
    expect(dialogs).toEqual([])
    expect(await page.locator('html').textContent()).not.toContain(PLANTED_SECRET)
    expect(requests).toEqual([url])
    await page.close()
  })

  it('folds long bodies without a script, and is readable in dark mode too', async () => {
    const page = await newPage({ colorScheme: 'light' })
    await page.goto(pathToFileURL(file).href)
    const folded = page.locator('details[data-folded="true"]').first()
    expect(await folded.count()).toBe(1)
    expect(await folded.locator('pre').isVisible()).toBe(false)
    await folded.locator('summary').click()
    expect(await folded.locator('pre').isVisible()).toBe(true)

    const colors = () =>
      page.evaluate(() => {
        const win = globalThis as unknown as DomWindow
        return win.getComputedStyle(win.document.body).backgroundColor
      })
    const light = await colors()
    await page.emulateMedia({ colorScheme: 'dark' })
    const dark = await colors()
    expect(light).toBe('rgb(255, 255, 255)')
    expect(dark).not.toBe(light)
    await page.locator('#step-3').scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(mkdirOnce(ARTIFACTS), 'report-failing-step-dark.png') })
    await page.close()
  })

  it("draws the run's crash tests as a grid, one colour per outcome, the detail on hover", async () => {
    const crashFile = join(dir, 'report-crash.html')
    const crashCells: CrashGridCell[] = [
      { step: 0, fault: '429 (retry-after 0s)', outcome: 'survived', detail: 'finished' },
      { step: 0, fault: 'timeout', outcome: 'survived', detail: 'finished' },
      { step: 1, fault: 'tool HTML error', outcome: 'failed', detail: 'TypeError: no total' },
      { step: 1, fault: 'tool throws', outcome: 'diverged', detail: 'asked at step 2 for …' },
    ]
    writeFileSync(crashFile, renderHtmlReport(run, { crashCells }))
    const page = await newPage()
    await page.goto(pathToFileURL(crashFile).href)
    const grid = page.locator('#crash-tests table.crash-grid')
    expect(await grid.isVisible()).toBe(true)
    const background = (outcome: string) =>
      page
        .locator(`td.crash-cell[data-outcome="${outcome}"]`)
        .first()
        .evaluate(
          (el) =>
            (globalThis as unknown as DomWindow).getComputedStyle(el as unknown as DomElement)
              .backgroundColor,
        )
    const colours = [await background('survived'), await background('failed'), await background('diverged')]
    expect(new Set(colours).size).toBe(3)
    expect(colours).not.toContain('rgba(0, 0, 0, 0)')
    // A fault that does not fit a step is an empty cell: the model faults at the tool step, and back.
    expect(await page.locator('td.crash-none').count()).toBe(4)
    expect(await page.locator('td.crash-cell[data-outcome="failed"]').getAttribute('title')).toContain(
      'TypeError: no total',
    )
    await grid.scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(mkdirOnce(ARTIFACTS), 'report-crash-grid.png') })
    await page.close()
  })
})

function mkdirOnce(path: string): string {
  mkdirSync(path, { recursive: true })
  return path
}
