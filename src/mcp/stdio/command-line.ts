import { basename, isAbsolute, relative, sep } from 'node:path'
import type { StdioServer } from './types.ts'

/**
 * A stdio server's command line as crashlab shows and records it, the same on every machine that checks
 * the project out: the command without its folder (`/usr/bin/node` and `process.execPath` are `node`),
 * each argument that is a path under the working directory made relative to it with `/` separators, and
 * an argument with spaces or quotes quoted.
 *
 * @example
 * commandLine({ command: process.execPath, args: [`${process.cwd()}/servers/orders.mjs`] }) // 'node servers/orders.mjs'
 */
export function commandLine(server: StdioServer): string {
  const cwd = process.cwd()
  const args = server.args.map((arg) => {
    if (!isAbsolute(arg)) return arg
    const rel = relative(cwd, arg)
    return rel.startsWith('..') || isAbsolute(rel) ? arg : rel.split(sep).join('/')
  })
  const command = basename(server.command).replace(/\.(exe|cmd)$/i, '')
  return [command, ...args].map(quoted).join(' ')
}

function quoted(part: string): string {
  return /^[\w@%+=:,./-]+$/.test(part) ? part : JSON.stringify(part)
}

/**
 * A stdio server's address in its steps: `stdio:` and its command line as `commandLine` gives it, the
 * same on every machine that checks the project out.
 *
 * @example
 * stdioUrl({ command: process.execPath, args: [`${process.cwd()}/servers/orders.mjs`] }) // 'stdio:node servers/orders.mjs'
 */
export function stdioUrl(server: StdioServer): string {
  return `stdio:${commandLine(server)}`
}
