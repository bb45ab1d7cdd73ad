import { createRequire } from 'node:module'
import type Picocolors from 'picocolors'

/**
 * picocolors, loaded with `require()`: it is a CommonJS module, and importing one from an ES module
 * makes Node start its CommonJS export scanner (about 5 ms of `crashlab ls`, whose other modules are all
 * ES modules).
 *
 * @example
 * console.log(pc.dim('01JH…'))
 */
export const pc: typeof Picocolors = createRequire(import.meta.url)('picocolors')
