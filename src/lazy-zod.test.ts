import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { lazySchema, zod } from './lazy-zod.ts'

describe('lazySchema', () => {
  it('builds its value on the first use, once', () => {
    let builds = 0
    const Point = lazySchema(() => {
      builds += 1
      return zod.strictObject({ x: zod.number(), y: zod.number() })
    })
    expect(builds).toBe(0)
    expect(Point.parse({ x: 1, y: 2 })).toEqual({ x: 1, y: 2 })
    expect(Point.safeParse({ x: 1 }).success).toBe(false)
    expect(builds).toBe(1)
  })

  it('stands for the schema inside other schemas, as zod sees it (instanceof, shape, spread, optional)', () => {
    const Id = lazySchema(() => zod.string().min(1))
    const shape = lazySchema(() => ({ id: Id, tags: zod.array(Id).optional() }))
    const Item = lazySchema(() => zod.strictObject({ ...shape, note: Id.optional() }))
    expect(Id).toBeInstanceOf(z.ZodString)
    expect(Object.keys(Item.shape)).toEqual(['id', 'tags', 'note'])
    expect(Item.parse({ id: 'a', tags: ['b'] })).toEqual({ id: 'a', tags: ['b'] })
    const failed = Item.safeParse({ id: '', note: 3 })
    expect(failed.success).toBe(false)
    expect(failed.error?.issues.map((i) => i.path.join('.'))).toEqual(['id', 'note'])
  })

  it('gives the zod instance that `import "zod"` gives', () => {
    expect(zod.ZodError).toBe(z.ZodError)
    const error = lazySchema(() => zod.number()).safeParse('x').error
    expect(error).toBeInstanceOf(z.ZodError)
  })
})
