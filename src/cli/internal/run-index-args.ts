import { openRunIndex, type RunIndexReader } from '../../store/open-run-index.ts'
import { usingClosable } from './store-dir-arg.ts'

/**
 * Opens the store a command only lists (`--dir`) through its index alone when it can
 * (`openRunIndex`), runs `fn`, and closes it, whatever happens.
 */
export function withRunIndex<T>(
  dir: string | undefined,
  fn: (index: RunIndexReader) => T | Promise<T>,
): Promise<T> {
  return usingClosable(openRunIndex(dir ? { dir } : {}), fn)
}
