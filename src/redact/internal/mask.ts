/**
 * Masks a suspected secret for a report: a few leading characters (enough to recognise the format and
 * find it), an ellipsis and the length. Short values show less, so a report never holds most of one.
 *
 * @example
 * maskExcerpt('sk-proj-abcdefghijklmnopqrstuvwx') // 'sk-p…(32)'
 * maskExcerpt('hunter22') // 'hu…(8)'
 */
export function maskExcerpt(value: string): string {
  const shown = Math.min(4, Math.floor(value.length / 4))
  return `${value.slice(0, shown)}…(${value.length})`
}
