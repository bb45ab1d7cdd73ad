import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { writeFileAtomic } from '../../case/atomic-write.ts'
import { binaryOf } from '../../case/binary-bodies.ts'
import { cassetteFilesDir } from '../../case/cassette-binaries.ts'
import type { Run } from '../../case/schema/run.ts'
import type { BodyFile, Step } from '../../case/schema/step.ts'
import { CrashlabError } from '../../errors.ts'
import { redactDocument } from '../../redact/redact-document.ts'
import type { Redactor } from '../../redact/types.ts'
import type { JournalInit, RunJournal, SaveOptions, StoredRunSummary } from '../types.ts'
import { currentWriter, openJournals } from './process-alive.ts'

/** The journal format this crashlab writes (`v` of the init line). */
export const JOURNAL_VERSION = 1

/** The path of a run's journal in a store. */
export function journalPath(dir: string, id: string): string {
  return join(dir, 'journal', `${id}.jsonl`)
}

/**
 * A run's journal: `<dir>/journal/<id>.jsonl`, one JSON object per line, opened for append. The first
 * line says which run and which process (`{"t":"init", …, "pid": …}`); each finished step follows as
 * `{"t":"step","step":{…},"redacted":[…]}`, redacted before it is written (a secret never reaches the
 * disk, even in a run that is never finished) and fsync'd before `append` returns, so what a killed
 * process leaves is every step it finished. Binary bodies go straight to the run's sidecar folder.
 *
 * @example
 * const journal = new JournalFile(dir, init, cassettePath, (run, o) => store.save(run, o))
 * journal.append(step)
 */
export class JournalFile implements RunJournal {
  readonly id: string
  readonly path: string
  private fd: number | undefined
  private readonly redactor: Redactor | undefined
  private readonly cassettePath: string
  private readonly save: (run: Run, options?: SaveOptions) => StoredRunSummary

  constructor(
    dir: string,
    init: JournalInit,
    cassettePath: string,
    save: (run: Run, options?: SaveOptions) => StoredRunSummary,
  ) {
    this.cassettePath = cassettePath
    this.save = save
    this.id = init.id
    this.path = journalPath(dir, init.id)
    this.redactor = init.redactor
    const input = redactDocument(init.input, { redactor: this.redactor })
    const line = {
      t: 'init',
      v: JOURNAL_VERSION,
      id: init.id,
      name: init.name,
      input: input.value,
      startedAt: init.startedAt,
      entryPoint: init.entryPoint ?? null,
      redacted: input.records.map((r) => ({ path: r.path, rule: r.rule })),
      ...currentWriter(),
    }
    // Written under a temp name and renamed into place with its first line: a finalizer in another
    // process never sees a journal without it (which it would take for one that holds nothing).
    const tmp = join(dirname(this.path), `.${init.id}.${process.pid}.tmp`)
    try {
      mkdirSync(dirname(this.path), { recursive: true })
      this.fd = openSync(tmp, 'ax', 0o600)
      this.write(line)
      renameSync(tmp, this.path)
      openJournals().add(this.id)
    } catch (cause) {
      this.close()
      rmSync(tmp, { force: true })
      throw cause instanceof CrashlabError ? cause : writeFailed(this.path, cause)
    }
  }

  append(step: Step): void {
    if (this.fd === undefined) {
      throw new CrashlabError(
        'E_WRITE_FAILED',
        `the journal of run ${this.id} is closed: no step can be added.`,
        {
          subject: this.path,
        },
      )
    }
    const redacted = redactDocument(step, { redactor: this.redactor })
    // The original step: the side table of binary bytes is keyed by its own bodyFile objects.
    this.writeBinaries(step)
    this.write({
      t: 'step',
      step: redacted.value,
      redacted: redacted.records.map((r) => ({ path: r.path, rule: r.rule })),
    })
  }

  finish(run: Run, options?: SaveOptions): StoredRunSummary {
    let summary: StoredRunSummary
    try {
      summary = this.save(run, options)
    } catch (error) {
      // Closed but kept: the steps are safe on disk, and the next finalize (in this process too, as the
      // journal is no longer open) saves them as an incomplete run.
      this.close()
      throw error
    }
    this.close()
    rmSync(this.path, { force: true })
    return summary
  }

  abandon(): void {
    this.close()
    rmSync(this.path, { force: true })
  }

  private close(): void {
    if (this.fd === undefined) return
    const fd = this.fd
    this.fd = undefined
    openJournals().delete(this.id)
    try {
      closeSync(fd)
    } catch {
      // nothing left to lose: every line was fsync'd
    }
  }

  /** One line, written whole and fsync'd: a crash leaves at most a torn last line, which a reader drops. */
  private write(value: unknown): void {
    const bytes = Buffer.from(`${JSON.stringify(value)}\n`, 'utf8')
    try {
      let offset = 0
      while (offset < bytes.length)
        offset += writeSync(this.fd as number, bytes, offset, bytes.length - offset)
      fsyncSync(this.fd as number)
    } catch (cause) {
      throw writeFailed(this.path, cause)
    }
  }

  private writeBinaries(step: Step): void {
    const files: BodyFile[] = []
    const wires =
      step.type === 'llm'
        ? [step.request.wire, step.response?.wire]
        : step.type === 'http'
          ? [step.request, step.response]
          : []
    for (const wire of wires) if (wire?.bodyFile) files.push(wire.bodyFile)
    for (const file of files) {
      const bytes = binaryOf(file)
      if (bytes) writeFileAtomic(join(cassetteFilesDir(this.cassettePath), file.sha256), bytes)
    }
  }
}

function writeFailed(path: string, cause: unknown): CrashlabError {
  return new CrashlabError(
    'E_WRITE_FAILED',
    `could not write the run journal ${path}: ${(cause as Error).message}. Check that the store folder is writable and the disk has room.`,
    { cause, subject: path },
  )
}
