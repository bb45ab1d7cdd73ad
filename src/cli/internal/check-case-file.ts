import { fromAgentCase } from '../../case/agentcase/index.ts'
import { binaryOf } from '../../case/binary-bodies.ts'
import { prepareCassette } from '../../case/cassette-write.ts'
import type { Run } from '../../case/schema/run.ts'
import { CrashlabError } from '../../errors.ts'
import type { Redactor } from '../../redact/types.ts'
import { type CaseFile, loadCaseFile } from './load-case-file.ts'

export interface CheckCaseFileOptions {
  maxBytes?: number
  /** The redaction rules the store writes through (the config file's), when there are any. */
  redactor?: Redactor
  /** Tags the run would be stored with. */
  tags?: readonly string[]
}

/** A file that passed every check `crashlab import` makes, with the run it imports as. */
export interface CheckedCaseFile {
  file: CaseFile
  run: Run
}

/**
 * The one check behind `crashlab validate` and `crashlab import`, so that a file validate accepts is
 * a file import stores: the strict reader of its format (cassette with its sidecar files, or AgentCase),
 * the conversion of an AgentCase into a run, and everything the store's write would check (redaction
 * with the config's rules, the cassette schema, the bytes of every binary body), without writing.
 *
 * @example
 * const { file, run } = checkCaseFile('failures/refund.agentcase', { redactor })
 */
export function checkCaseFile(path: string, options: CheckCaseFileOptions = {}): CheckedCaseFile {
  const file = loadCaseFile(path, options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes })
  const run = file.kind === 'cassette' ? file.value.run : fromAgentCase(file.value, { source: path })
  const tags = [...new Set([...(run.tags ?? []), ...(options.tags ?? [])])]
  const where = `${path} (as the store would write it)`
  const prepared = prepareCassette(
    where,
    { ...run, tags },
    { ...(options.redactor ? { redactor: options.redactor } : {}), onWarning: () => {} },
  )
  for (const body of prepared.files) {
    if (prepared.held.has(body.sha256) || binaryOf(body)) continue
    throw new CrashlabError(
      'E_CASSETTE_INVALID',
      `${path}: the binary body ${body.sha256} (${body.bytes} bytes) has no bytes in the file and no sidecar file beside it, so it cannot be stored. Export the run again with its sidecar files.`,
      { subject: path },
    )
  }
  return { file, run }
}
