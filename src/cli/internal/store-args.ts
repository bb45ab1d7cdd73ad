import { openStore, type RunStore } from '../../store/index.ts'
import { STORE_DIR_ARG, usingClosable } from './store-dir-arg.ts'

export { STORE_DIR_ARG }

/** The `--cwd` option of the commands that run a stored run's entry point again. */
export const ENTRY_CWD_ARG = {
  cwd: {
    type: 'string',
    description: 'the folder the entry point is resolved in (default: here)',
    valueHint: 'path',
  },
} as const

/** Opens the store a command names (`--dir`), runs `fn`, and closes it, whatever happens. */
export function withStore<T>(dir: string | undefined, fn: (store: RunStore) => T | Promise<T>): Promise<T> {
  return usingClosable(openStore(dir ? { dir } : {}), fn)
}
