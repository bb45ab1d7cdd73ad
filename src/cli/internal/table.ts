/**
 * A plain text table for the terminal: columns padded to their widest cell (measured without colour
 * codes), numbers right-aligned.
 *
 * @example
 * console.log(formatTable(['id', 'steps'], [['01J…', '12']], { right: [1] }))
 */
export function formatTable(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  options: { right?: readonly number[] } = {},
): string {
  const widths = header.map((h, i) => Math.max(visible(h), ...rows.map((r) => visible(r[i] ?? ''))))
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => {
        const pad = ' '.repeat(Math.max(0, (widths[i] ?? 0) - visible(cell)))
        return options.right?.includes(i) ? pad + cell : cell + pad
      })
      .join('  ')
      .trimEnd()
  return [line(header), ...rows.map(line)].join('\n')
}

/** Cuts a cell to `max` visible characters with an ellipsis; newlines become spaces. */
export function cell(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ')
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

const ANSI = /\u001b\[[0-9;]*m/g

function visible(text: string): number {
  return text.replace(ANSI, '').length
}
