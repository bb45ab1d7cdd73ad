import { openStore, type RunStore } from '../../store/index.ts'
import { STORE_DIR_ARG } from './store-dir-arg.ts'

export { STORE_DIR_ARG }

/** Opens the store a command names (`--dir`), runs `fn`, and closes it, whatever happens. */
export async function withStore<T>(
  dir: string | undefined,
  fn: (store: RunStore) => T | Promise<T>,
): Promise<T> {
  const store = await openStore(dir ? { dir } : {})
  try {
    return await fn(store)
  } finally {
    store.close()
  }
}
