import { isIP } from 'node:net'

/**
 * The environment variable listing addresses to treat as remote although they are on this machine
 * (comma-separated, `127.0.0.2`). Tests set it so that a server bound on 127.0.0.2 stands for a host
 * off the machine: a replay's refusals are then checked against real sockets without sending anything
 * away. Read at each decision, so that a child process (a Vitest run) inherits it.
 */
export const REMOTE_ADDRESSES_ENV = 'CRASHLAB_REMOTE_ADDRESSES'

/**
 * True for a host that is this machine: `localhost` (and `*.localhost`), 127.0.0.0/8, `::1` and their
 * IPv4-mapped forms, unless listed in `CRASHLAB_REMOTE_ADDRESSES`. Every loopback-or-remote decision of
 * a replay goes through here. A name is judged as written, not resolved: a name that resolves to
 * loopback (a `/etc/hosts` entry, a container's service name) counts as remote until `allowHosts` names it.
 *
 * @example
 * isLoopbackHost('127.0.0.1') // true
 * isLoopbackHost('[::1]')     // true
 * isLoopbackHost('db')        // false
 */
export function isLoopbackHost(host: string): boolean {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
  if (remoteOverrides().has(name)) return false
  if (name === 'localhost' || name.endsWith('.localhost')) return true
  const mapped = name.startsWith('::ffff:') ? name.slice('::ffff:'.length) : name
  if (isIP(mapped) === 4) return mapped.startsWith('127.')
  if (isIP(name) === 6) return name === '::1' || name === '0:0:0:0:0:0:0:1'
  return false
}

function remoteOverrides(): ReadonlySet<string> {
  const listed = process.env[REMOTE_ADDRESSES_ENV]
  if (!listed) return EMPTY
  return new Set(
    listed
      .split(',')
      .map((a) => a.trim().toLowerCase())
      .filter(Boolean),
  )
}

const EMPTY: ReadonlySet<string> = new Set()
