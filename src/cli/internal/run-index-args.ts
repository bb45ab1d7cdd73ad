import { openRunIndex, type RunIndexReader } from '../../store/open-run-index.ts'

/**
 * Opens the store a command only lists (`--dir`) through its index alone when it can
 * (`openRunIndex`), runs `fn`, and closes it, whatever happens.
 */
export async function withRunIndex<T>(
  dir: string | undefined,
  fn: (index: RunIndexReader) => T | Promise<T>,
): Promise<T> {
  const index = await openRunIndex(dir ? { dir } : {})
  try {
    return await fn(index)
  } finally {
    index.close()
  }
}
