import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CrashlabError } from '../errors.ts'
import { findConfigFile } from './find-config.ts'
import { configStamp, loadConfig, validateConfig } from './load-config.ts'

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'crashlab-config-'))
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** A project folder with a package.json and, optionally, a config file. */
function project(name: string, config?: string, file = 'crashlab.config.ts'): string {
  const dir = join(root, name)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'package.json'), '{"name":"fixture","type":"module"}\n')
  if (config !== undefined) writeFileSync(join(dir, file), config)
  return dir
}

async function loadError(options: Parameters<typeof loadConfig>[0]): Promise<CrashlabError> {
  const error = await loadConfig(options).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(CrashlabError)
  return error as CrashlabError
}

describe('loadConfig', () => {
  it('reads a TypeScript config file, with types, RegExps and functions', async () => {
    const dir = project(
      'ts',
      `interface Checks { maxSteps: number; stepRepetition: { threshold: number } }
const checks: Checks = { maxSteps: 20, stepRepetition: { threshold: 4 } }
export default {
  checks,
  prices: { 'acme/model-x': { input: 1.5, output: 6 } },
  redaction: { patterns: [{ id: 'acme', pattern: /ACME-\\d{6}/ }], hooks: { upper: (v: string) => v } },
  store: { dir: 'runs' },
}
`,
    )
    const { path, config } = await loadConfig({ cwd: dir, env: {} })
    expect(path).toBe(join(dir, 'crashlab.config.ts'))
    expect(config.checks).toEqual({ maxSteps: 20, stepRepetition: { threshold: 4 } })
    expect(config.prices).toEqual({ 'acme/model-x': { input: 1.5, output: 6 } })
    expect(config.redaction?.patterns?.[0]?.pattern).toBeInstanceOf(RegExp)
    expect(typeof (config.redaction?.hooks as Record<string, unknown> | undefined)?.upper).toBe('function')
    // The store folder is resolved against the config file's folder, not the caller's.
    expect(config.store?.dir).toBe(join(dir, 'runs'))
  })

  it('finds the file from a subfolder, and stops at the project root', async () => {
    const dir = project('nested', 'export default { checks: { maxSteps: 7 } }\n', 'crashlab.config.mjs')
    const sub = join(dir, 'src', 'agents')
    mkdirSync(sub, { recursive: true })
    expect((await loadConfig({ cwd: sub, env: {} })).config.checks?.maxSteps).toBe(7)
    // An inner package without a config file does not read the outer one.
    const inner = join(dir, 'packages', 'inner')
    mkdirSync(inner, { recursive: true })
    writeFileSync(join(inner, 'package.json'), '{}')
    expect(findConfigFile(inner, {})).toBeNull()
    expect(await loadConfig({ cwd: inner, env: {} })).toEqual({ path: null, config: {} })
  })

  it('takes CRASHLAB_CONFIG, an explicit file, a function export; file: false reads none', async () => {
    const dir = project(
      'fn',
      'export default async () => ({ checks: { maxToolCalls: 3 } })\n',
      'other.config.ts',
    )
    const viaEnv = await loadConfig({ cwd: dir, env: { CRASHLAB_CONFIG: 'other.config.ts' } })
    expect(viaEnv.config.checks?.maxToolCalls).toBe(3)
    const viaFile = await loadConfig({ cwd: dir, file: 'other.config.ts', env: {} })
    expect(viaFile.path).toBe(join(dir, 'other.config.ts'))
    expect(await loadConfig({ cwd: dir, file: false })).toEqual({ path: null, config: {} })
  })

  it('fails at load with the path of every bad key', async () => {
    const dir = project(
      'bad',
      "export default { checks: { maxSteps: 'twenty', warnAt: 2 }, prices: { m: { input: -1, output: 1 } }, colour: 'red' }\n",
    )
    const error = await loadError({ cwd: dir, env: {} })
    expect(error.code).toBe('E_CONFIG_INVALID')
    expect(error.message).toContain(join(dir, 'crashlab.config.ts'))
    const paths = error.issues.map((i) => i.path)
    expect(paths).toEqual(
      expect.arrayContaining(['$.checks.maxSteps', '$.checks.warnAt', '$.prices.m.input', '$.colour']),
    )
    expect(error.message).toMatch(/→ at \$\.checks\.maxSteps/)
    expect(error.message).toMatch(/unknown key "colour"/)
  })

  it('a file that does not compile, or exports no object, fails naming the file', async () => {
    const broken = project('syntax', 'export default { checks: { maxSteps: 3 }\n')
    const e1 = await loadError({ cwd: broken, env: {} })
    expect(e1.code).toBe('E_CONFIG_LOAD')
    expect(e1.message).toContain(join(broken, 'crashlab.config.ts'))
    const empty = project('number', 'export default 42\n')
    const e2 = await loadError({ cwd: empty, env: {} })
    expect(e2.code).toBe('E_CONFIG_INVALID')
    expect(e2.message).toMatch(/must export a config object.*it exports number/)
    const missing = await loadError({ cwd: root, env: { CRASHLAB_CONFIG: 'nope.config.ts' } })
    expect(missing.code).toBe('E_CONFIG_LOAD')
    expect(missing.message).toMatch(/does not exist/)
  })

  it('trusts a file another process validated while its stamp holds, and validates it again once changed', async () => {
    // An invalid file, so that a skipped validation shows: the plugin's process would have refused it.
    const dir = project('stamped', 'export default { checks: { maxSteps: -1 } }\n')
    const file = join(dir, 'crashlab.config.ts')
    const stamp = configStamp(file)
    const trusted = await loadConfig({ file, validated: stamp })
    expect(trusted.config.checks).toEqual({ maxSteps: -1 })
    // A load that asks for validation is not answered by the trusted load's cache entry.
    expect((await loadError({ file })).code).toBe('E_CONFIG_INVALID')
    writeFileSync(file, 'export default { checks: { maxSteps: -2, colour: 1 } }\n')
    const changed = await loadError({ file, validated: stamp })
    expect(changed.message).toMatch(/unknown key "colour"/)
  })

  it('reads a file again after it changed', async () => {
    const dir = project('changes', 'export default { checks: { maxSteps: 1 } }\n')
    expect((await loadConfig({ cwd: dir, env: {} })).config.checks?.maxSteps).toBe(1)
    writeFileSync(join(dir, 'crashlab.config.ts'), 'export default { checks: { maxSteps: 22 } }\n')
    expect((await loadConfig({ cwd: dir, env: {} })).config.checks?.maxSteps).toBe(22)
  })
})

describe('validateConfig', () => {
  it('returns what the user wrote, without defaults filled in', () => {
    const written = { checks: { maxSteps: 5 } }
    expect(validateConfig(written, 'test')).toEqual(written)
  })
  it('takes `mcp.sideEffects` by server or by tool, and names the server or tool whose value is wrong', () => {
    const written = { mcp: { sideEffects: { 'orders-server': { get_order: false }, 'mail-server': true } } }
    expect(validateConfig(written, 'test')).toEqual(written)
    const bad = { mcp: { sideEffects: { 'orders-server': { get_order: 'no' }, 'mail-server': 'yes' } } }
    const error = (() => {
      try {
        validateConfig(bad, 'crashlab.config.ts')
      } catch (e) {
        return e as CrashlabError
      }
    })()
    expect(error?.issues.map((i) => [i.path, i.message])).toEqual([
      ["$.mcp.sideEffects['orders-server'].get_order", 'expected true or false'],
      ["$.mcp.sideEffects['mail-server']", 'expected true, false, or an object of tool names'],
    ])
    expect(() => validateConfig({ mcp: { sideEffect: {} } }, 'test')).toThrow(
      /unknown key "sideEffect"[\s\S]*\$\.mcp\.sideEffect/,
    )
  })

  it('names the source in the error', () => {
    expect(() =>
      validateConfig({ checks: { circuitBreaker: 'yes' } }, 'the crashlab() plugin options'),
    ).toThrow(
      /the crashlab\(\) plugin options is not a valid crashlab config:[\s\S]*\$\.checks\.circuitBreaker/,
    )
  })
})
