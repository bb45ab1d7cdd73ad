import { openStore, type RunStore } from '../../store/index.ts'
import { STORE_DIR_ARG, usingClosable } from './store-dir-arg.ts'

export { STORE_DIR_ARG }

/** Opens the store a command names (`--dir`), runs `fn`, and closes it, whatever happens. */
export function withStore<T>(dir: string | undefined, fn: (store: RunStore) => T | Promise<T>): Promise<T> {
  return usingClosable(openStore(dir ? { dir } : {}), fn)
}
