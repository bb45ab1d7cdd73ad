/**
 * zod, loaded when a schema is first used rather than when crashlab is imported. zod's 95 modules (64
 * of them locales) are most of what a Vitest worker would load for the plugin, and a test file that
 * never touches a cassette, a config file or a check has no use for them (docs/architecture.md,
 * "Start-up").
 *
 * The schema modules build each schema inside `lazySchema(() => ...)` with `zod` for the values and
 * `import type { z } from 'zod'` for the types. The first property read of a schema (`parse`,
 * `safeParse`, `shape`, ...) builds it, loading zod then. Loading is synchronous, so every schema keeps
 * its synchronous API: zod loads through `requireModule` (src/require-module.ts), the same module
 * instance that `import 'zod'` gives the user's own code.
 */
import type * as ZodModule from 'zod'
import { moduleRequired, requireModule } from './require-module.ts'

type Zod = typeof ZodModule.z

function loadZod(): Zod {
  return requireModule<typeof ZodModule>('zod').z
}

/**
 * zod's `z`, loaded on the first property read.
 *
 * @example
 * const Name = lazySchema(() => zod.string().min(1))
 */
export const zod: Zod = new Proxy({} as Zod, {
  get: (_, key) => Reflect.get(loadZod(), key),
})

/**
 * A value (a zod schema, or anything built from one) that `build` makes on its first use: the returned
 * object stands for it in every property read, `in`, `instanceof` and key listing.
 *
 * @example
 * export const PointSchema = lazySchema(() => zod.strictObject({ x: zod.number(), y: zod.number() }))
 * PointSchema.parse({ x: 1, y: 2 }) // builds the schema (and loads zod) here
 */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined
  const real = (): T => {
    built ??= build()
    return built
  }
  return new Proxy({} as T, {
    get: (_, key) => {
      const target = real()
      return Reflect.get(target, key, target)
    },
    set: (_, key, value) => Reflect.set(real(), key, value),
    has: (_, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(real(), key)
      // A proxy may only report configurable properties its own (empty) target lacks.
      return descriptor && { ...descriptor, configurable: true }
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
  })
}

/**
 * Whether zod has been loaded in this process (for the start-up tests and bench).
 *
 * @example
 * zodLoaded() // false until a schema is first used
 */
export function zodLoaded(): boolean {
  return moduleRequired('zod')
}
