/** The `--dir` option every store command takes. */
export const STORE_DIR_ARG = {
  dir: {
    type: 'string',
    description: "the run store (default: $CRASHLAB_DIR, the config file's store.dir, or ./.crashlab)",
    valueHint: 'path',
  },
} as const

/** Runs `fn` on what `opened` resolves to, and closes it, whatever happens. */
export async function usingClosable<S extends { close(): void }, T>(
  opened: Promise<S>,
  fn: (value: S) => T | Promise<T>,
): Promise<T> {
  const value = await opened
  try {
    return await fn(value)
  } finally {
    value.close()
  }
}
