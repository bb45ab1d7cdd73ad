/**
 * The timing loop the benchmarks share: each case's median in milliseconds, after warm-up calls, with
 * samples taken in runs of consecutive calls per case (so each case pays for its own garbage: a large
 * parse leaves tens of MB of it, and interleaving the cases would bill it to whichever runs next), in two
 * passes in opposite orders (so a slow spell of a shared machine hits both sides alike).
 */

/** One thing to time: a name and a synchronous call. */
export type Case = { name: string; fn: () => unknown }

/** Each case's median in milliseconds over `rounds` samples, after `warmup` calls. */
export function measure(cases: Case[], options: { warmup: number; rounds: number }): Map<string, number> {
  const samples = new Map(cases.map((c) => [c.name, [] as number[]]))
  for (const c of cases) for (let i = 0; i < options.warmup; i++) c.fn()
  for (const pass of [cases, [...cases].reverse()]) {
    for (const c of pass) {
      const own = samples.get(c.name) as number[]
      for (let r = 0; r < Math.ceil(options.rounds / 2); r++) {
        const start = performance.now()
        c.fn()
        own.push(performance.now() - start)
      }
    }
  }
  return new Map(cases.map((c) => [c.name, median(samples.get(c.name) as number[])]))
}

/** The median (the mean of the middle two for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2
}
