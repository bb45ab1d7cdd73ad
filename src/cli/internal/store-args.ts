import { openStore, type RunStore } from '../../store/index.ts'

/** The `--dir` option every store command takes. */
export const STORE_DIR_ARG = {
  dir: {
    type: 'string',
    description: "the run store (default: $CRASHLAB_DIR, the config file's store.dir, or ./.crashlab)",
    valueHint: 'path',
  },
} as const

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
