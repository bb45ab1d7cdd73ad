import { isLong, sizeOf } from './text-fold.ts'

/**
 * The HTML building blocks of the report. Every piece of run data goes through `esc`: text between tags
 * and attribute values alike (attributes are always double-quoted), so a prompt or a tool result that
 * holds markup shows as text.
 */

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}

/** Escapes text for an HTML text node or a double-quoted attribute. */
export function esc(text: string | number): string {
  return String(text).replace(/[&<>"']/g, (ch) => ENTITIES[ch] ?? ch)
}

/** The most of one body the file holds; the rest is left to `crashlab show`. */
const MAX_BODY_CHARS = 100_000

/**
 * A body in a `<details>` block: open when short, folded (closed) when long, with its size in the
 * summary so that a reader knows what unfolding costs. Works without scripts.
 */
export function foldedBody(label: string, text: string, ref: string): string {
  const long = isLong(text)
  const chars = Array.from(text)
  const cut = chars.length > MAX_BODY_CHARS
  const shown = cut ? chars.slice(0, MAX_BODY_CHARS).join('') : text
  const tail = cut
    ? `<p class="cut">… ${esc(chars.length - MAX_BODY_CHARS)} more characters: <code>npx crashlab show ${esc(ref)}</code></p>`
    : ''
  const summary = `${esc(label)} <span class="size">(${esc(sizeOf(text))}${long ? ', folded' : ''})</span>`
  return (
    `<details class="body" data-folded="${long}"${long ? '' : ' open'}><summary>${summary}</summary>` +
    `<pre>${esc(shown)}</pre>${tail}</details>`
  )
}

/** Light and dark colors follow the reader's system (`prefers-color-scheme`); nothing is loaded. */
export const STYLE = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#59636e;--line:#d1d9e0;--panel:#f6f8fa;
--bad:#cf222e;--bad-bg:#ffebe9;--ok:#1a7f37;--ok-bg:#dafbe1;--warn:#9a6700;--warn-bg:#fff8c5;--accent:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--panel:#151b23;
--bad:#ff7b72;--bad-bg:#3c1618;--ok:#3fb950;--ok-bg:#12261e;--warn:#d29922;--warn-bg:#2e2614;--accent:#4493f8}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:72rem;padding:1.5rem;background:var(--bg);color:var(--fg);
font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
h1{font-size:1.4rem;margin:0 0 .25rem}h2{font-size:1.15rem;border-bottom:1px solid var(--line);padding-bottom:.25rem;margin-top:2rem}
h3{font-size:1rem;margin:0}
a{color:var(--accent)}code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{margin:0;padding:.6rem .75rem;background:var(--panel);border-radius:6px;overflow:auto;white-space:pre-wrap;word-break:break-word}
.muted,.size{color:var(--muted)}
.badge{display:inline-block;padding:0 .5rem;border-radius:1rem;font-size:.8rem;font-weight:600;border:1px solid currentColor;white-space:nowrap}
.pass{color:var(--ok)}.fail,.critical,.error{color:var(--bad)}.warn,.unknown{color:var(--warn)}.info{color:var(--muted)}
.badge.failing{background:var(--bad);border-color:var(--bad);color:var(--bg)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.75rem 0}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
.callout{border:1px solid var(--bad);background:var(--bad-bg);border-radius:6px;padding:.6rem .9rem;margin:1rem 0}
ul.checks{list-style:none;padding:0}ul.checks li{padding:.2rem 0}
.finding{border:1px solid var(--line);border-left:4px solid var(--muted);border-radius:6px;padding:.6rem .9rem;margin:.6rem 0}
.finding[data-severity=critical],.finding[data-severity=error]{border-left-color:var(--bad)}.finding[data-severity=warn]{border-left-color:var(--warn)}
blockquote{margin:.4rem 0;padding:.2rem .75rem;border-left:3px solid var(--line);color:var(--fg);white-space:pre-wrap;word-break:break-word;font-family:ui-monospace,monospace;font-size:13px}
ol.timeline{list-style:none;padding:0;margin:0}
.step{border:1px solid var(--line);border-radius:6px;padding:.6rem .9rem;margin:.6rem 0;scroll-margin-top:1rem}
.step[data-flagged=true]{border-left:4px solid var(--warn)}
.step[data-failing=true]{border:2px solid var(--bad);border-left-width:6px;background:var(--bad-bg)}
.step:target{outline:3px solid var(--accent)}
.step-head{display:flex;flex-wrap:wrap;gap:.4rem .8rem;align-items:baseline}
.step-head .title{font-weight:600;word-break:break-all}
.io{display:grid;grid-template-columns:1fr 1fr;gap:.75rem;margin-top:.5rem}@media (max-width:50rem){.io{grid-template-columns:1fr}}
.io h4{margin:.2rem 0;font-size:.85rem;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
details.body{margin:.3rem 0}details.body>summary{cursor:pointer;font-size:.85rem}details.body>pre{margin-top:.3rem}
table{border-collapse:collapse}td,th{padding:.2rem .8rem .2rem 0;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}
.fix{border:1px solid var(--line);border-left:4px solid var(--muted);border-radius:6px;padding:.6rem .9rem;margin:.6rem 0}
.fix[data-verdict=VERIFIED],.fix[data-verdict=LIKELY]{border-left-color:var(--ok)}.fix[data-verdict=REJECTED]{border-left-color:var(--bad)}
.fix[data-verdict=INCONCLUSIVE]{border-left-color:var(--warn)}.fix h4{margin:.6rem 0 .2rem;font-size:.9rem}
.badge.verified{background:var(--ok);border-color:var(--ok);color:var(--bg)}.badge.likely{color:var(--ok);background:var(--ok-bg)}
.badge.inconclusive{color:var(--warn);background:var(--warn-bg)}.badge.rejected{background:var(--bad);border-color:var(--bad);color:var(--bg)}
.badge.none{color:var(--muted)}
pre.diff .add{color:var(--ok)}pre.diff .del{color:var(--bad)}pre.diff .hunk{color:var(--accent)}pre.diff .note,pre.diff .file{color:var(--muted)}
table.verification th,table.attempts th,table.trials th{color:var(--muted);font-weight:600}
.crash-grid td.crash-cell{text-align:center;font-size:.8rem;font-weight:600;padding:.3rem .6rem;border:2px solid var(--bg)}
.crash-grid td[data-outcome=survived]{background:var(--ok-bg);color:var(--ok)}.crash-grid td[data-outcome=failed]{background:var(--bad);color:var(--bg)}
.crash-grid td[data-outcome=diverged]{background:var(--warn-bg);color:var(--warn)}.crash-grid td.crash-none{background:transparent}.crash-grid th{font-weight:600;font-size:.8rem}
ul.next{list-style:none;padding:0}ul.next li{margin:.3rem 0}
footer{margin-top:2.5rem;color:var(--muted);font-size:.85rem}
`
