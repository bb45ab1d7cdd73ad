import type { Run } from '../../case/schema/run.ts'
import type { Session } from '../../engine/session.ts'
import type { SessionHooks } from '../../engine/types.ts'
import type { Redactor } from '../../redact/types.ts'
import type { RunJournal, RunStore, StoredRunSummary } from '../../store/types.ts'
import { warnStore } from './store-for.ts'

/**
 * The store side of one capture: the run's journal, fed by the Session's `onStep` hook, and the save
 * at the end. Every failure here (a full disk, a read-only folder) is a warning, never an error the
 * agent sees: a step that cannot be journaled stops the journal, and the run is still saved at the end
 * when the store can take it.
 *
 * @example
 * const journal = new CaptureJournal(store, redactor)
 * const session = new Session({ mode: 'record', hooks: composeHooks(journal.hooks, checks.hooks) })
 * journal.start(session)
 * // … the agent runs …
 * const stored = journal.finish(run)
 */
export class CaptureJournal {
  readonly hooks: SessionHooks
  readonly store: RunStore
  private readonly redactor: Redactor | undefined
  private readonly tags: readonly string[]
  private journal: RunJournal | undefined
  private broken = false

  constructor(store: RunStore, redactor: Redactor | undefined, tags: readonly string[] = []) {
    this.store = store
    this.redactor = redactor
    this.tags = tags
    this.hooks = { onStep: (step) => this.append(step) }
  }

  /** Opens the journal of the Session's run (its id, name, input and start time). */
  start(session: Session): void {
    const run = session.run
    try {
      this.journal = this.store.startJournal({
        id: run.id,
        name: run.name,
        input: run.input,
        startedAt: run.startedAt,
        entryPoint: run.entryPoint,
        redactor: this.redactor,
      })
    } catch (error) {
      this.broken = true
      warnStore(`could not start the journal of run ${run.id}; it is saved only when it ends`, error)
    }
  }

  /** Saves the finished run and removes its journal; undefined when the store could not take it. */
  finish(run: Run): StoredRunSummary | undefined {
    const options = { redactor: this.redactor, tags: [...this.tags] }
    try {
      return this.journal ? this.journal.finish(run, options) : this.store.save(run, options)
    } catch (error) {
      warnStore(`could not store run ${run.id}`, error)
      return undefined
    }
  }

  /** Drops the journal: the run is not stored. */
  abandon(): void {
    try {
      this.journal?.abandon()
    } catch (error) {
      warnStore(`could not remove the journal of run ${this.journal?.id}`, error)
    }
  }

  private append(step: Parameters<NonNullable<SessionHooks['onStep']>>[0]): void {
    if (!this.journal || this.broken) return
    try {
      this.journal.append(step)
    } catch (error) {
      this.broken = true
      warnStore(
        `could not journal step ${step.index} of run ${this.journal.id}; the rest of the run is kept in memory`,
        error,
      )
    }
  }
}
