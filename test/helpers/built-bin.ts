import { join, resolve } from 'node:path'

/** The built `crashlab` bin (test/global-setup.ts builds dist/ before the suite): what users run. */
export const BUILT_BIN = join(resolve(import.meta.dirname, '..', '..'), 'dist', 'src', 'cli', 'bin.js')
