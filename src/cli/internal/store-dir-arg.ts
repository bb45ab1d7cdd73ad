/** The `--dir` option every store command takes. */
export const STORE_DIR_ARG = {
  dir: {
    type: 'string',
    description: "the run store (default: $CRASHLAB_DIR, the config file's store.dir, or ./.crashlab)",
    valueHint: 'path',
  },
} as const
