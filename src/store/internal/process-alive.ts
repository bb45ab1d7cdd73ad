import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'

/**
 * Who wrote a journal: enough to tell later whether that process is still running. A pid alone is not:
 * pids are reused, and in a container the restarted process often gets the same one (pid 1).
 */
export interface Writer {
  pid: number
  host: string
  /** Linux: the process's start time in clock ticks since boot (`/proc/<pid>/stat`, field 22); else null. */
  procStart: string | null
}

const OPEN = Symbol.for('crashlab.store.openJournals')
const holder = globalThis as typeof globalThis & { [OPEN]?: Set<string> }

/**
 * The runs whose journal this process has open, by run id (a ULID: unique, and the same however the
 * store folder was spelled). Shared by every copy of crashlab in the process.
 */
export function openJournals(): Set<string> {
  holder[OPEN] ??= new Set()
  return holder[OPEN]
}

/** This process, as written in the journals it starts. */
export function currentWriter(): Writer {
  return { pid: process.pid, host: hostname(), procStart: procStart(process.pid) }
}

/**
 * True while the process that wrote a journal may still be running. `id` is the journal's run: a journal
 * of this very pid that this process did not open was left by an earlier process that had the same pid.
 * A journal of another host is presumed alive: its process cannot be checked from here.
 *
 * @example
 * if (!writerAlive(head, head.id)) finalize(path)
 */
export function writerAlive(writer: Partial<Writer>, id: string): boolean {
  if (typeof writer.pid !== 'number' || !Number.isInteger(writer.pid) || writer.pid <= 0) return false
  if (writer.host !== undefined && writer.host !== hostname()) return true
  if (writer.pid === process.pid) return openJournals().has(id)
  try {
    process.kill(writer.pid, 0)
  } catch (error) {
    // EPERM: it exists, under another user. ESRCH: gone.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  const now = procStart(writer.pid)
  return !(writer.procStart && now && writer.procStart !== now)
}

function procStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields[19] ?? null
  } catch {
    return null
  }
}
