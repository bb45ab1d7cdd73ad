import { packageManifest } from './package-root.ts'

/** The version of this crashlab package, as written into every cassette's `creator`. */
export const VERSION: string = packageManifest()?.version ?? '0.0.0'
