/** One line of a diff: kept (' '), removed ('-') or added ('+'), with its line number on each side. */
export interface DiffLine {
  op: ' ' | '-' | '+'
  text: string
  /** Index in the old lines (kept and removed lines). */
  a?: number
  /** Index in the new lines (kept and added lines). */
  b?: number
}

/**
 * The shortest edit between two lists of lines (longest common subsequence). The common head and tail
 * are taken off first, so a patch that touches a few lines of a long conversation costs little.
 */
export function diffLines(a: readonly string[], b: readonly string[]): DiffLine[] {
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++
  const out: DiffLine[] = []
  for (let k = 0; k < head; k++) out.push({ op: ' ', text: a[k]!, a: k, b: k })
  const n = a.length - head - tail
  const m = b.length - head - tail
  // Past this size the table would take too much memory: the middle shows as removed, then added.
  if (n * m > MAX_CELLS) {
    for (let k = head; k < head + n; k++) out.push({ op: '-', text: a[k]!, a: k })
    for (let k = head; k < head + m; k++) out.push({ op: '+', text: b[k]!, b: k })
  } else {
    out.push(...middle(a.slice(head, head + n), b.slice(head, head + m), head))
  }
  for (let k = 0; k < tail; k++) {
    out.push({ op: ' ', text: a[a.length - tail + k]!, a: a.length - tail + k, b: b.length - tail + k })
  }
  return out
}

const MAX_CELLS = 4_000_000

/** The LCS diff of the differing middle parts; `offset` is where they start in both lists. */
function middle(a: readonly string[], b: readonly string[], offset: number): DiffLine[] {
  const n = a.length
  const m = b.length
  // lcs[i * (m + 1) + j]: the longest common subsequence of a[i..] and b[j..].
  const lcs = new Uint32Array((n + 1) * (m + 1))
  const at = (i: number, j: number) => lcs[i * (m + 1) + j]!
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * (m + 1) + j] = a[i] === b[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1))
    }
  }
  const out: DiffLine[] = []
  let i = 0
  let j = 0
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push({ op: ' ', text: a[i]!, a: offset + i, b: offset + j })
      i++
      j++
    } else if (i < n && (j === m || at(i + 1, j) >= at(i, j + 1))) {
      out.push({ op: '-', text: a[i]!, a: offset + i })
      i++
    } else {
      out.push({ op: '+', text: b[j]!, b: offset + j })
      j++
    }
  }
  return out
}

/** A run of changes with up to `context` kept lines around it, as unified diff prints it. */
export interface Hunk {
  lines: DiffLine[]
  header: string
}

/**
 * Groups a diff into unified-diff hunks (`@@ -a,n +b,m @@`). Changes closer than twice the context share
 * a hunk. Removed lines print before added ones within a change, as `diff -u` does.
 */
export function hunks(diff: readonly DiffLine[], context = 3): Hunk[] {
  const changed = diff.flatMap((d, i) => (d.op === ' ' ? [] : [i]))
  const out: Hunk[] = []
  let k = 0
  while (k < changed.length) {
    const start = Math.max(0, changed[k]! - context)
    let end = changed[k]!
    while (k + 1 < changed.length && changed[k + 1]! - end - 1 <= 2 * context) end = changed[++k]!
    k++
    const lines = diff.slice(start, Math.min(diff.length, end + context + 1))
    out.push({ lines, header: header(lines, diff, start) })
  }
  return out
}

function header(lines: readonly DiffLine[], diff: readonly DiffLine[], start: number): string {
  const before = diff.slice(0, start)
  const aStart = before.filter((d) => d.op !== '+').length
  const bStart = before.filter((d) => d.op !== '-').length
  const aCount = lines.filter((d) => d.op !== '+').length
  const bCount = lines.filter((d) => d.op !== '-').length
  const range = (from: number, count: number) =>
    count === 1 ? `${from + 1}` : `${count === 0 ? from : from + 1},${count}`
  return `@@ -${range(aStart, aCount)} +${range(bStart, bCount)} @@`
}
