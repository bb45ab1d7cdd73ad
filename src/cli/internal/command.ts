import { reportUnexpected } from './report-error.ts'
import { usageError } from './usage-error.ts'

/**
 * The CLI's commands: their definitions, the parsing of their arguments and their `--help`. crashlab's
 * own, small on purpose: `crashlab ls` and `crashlab --version` load this module and the command they
 * run, nothing else (no argument-parsing library, no `node:util`, whose ES-module facade alone costs
 * several milliseconds of a process that should cost about what `node -e 0` does).
 */

interface ArgBase {
  description?: string
  /** Shown in `--help` after the option: `--dir <path>`. */
  valueHint?: string
  required?: boolean
}

/** A flag: `--json`, `--no-color` (false), `--json=false` (false). */
export interface BooleanArgDef extends ArgBase {
  type: 'boolean'
  default?: boolean
  alias?: string | readonly string[]
}

/** An option with a value: `--dir path`, `--dir=path`, `-o path`, `-o=path`, `-k10`. */
export interface StringArgDef extends ArgBase {
  type: 'string'
  default?: string
  alias?: string | readonly string[]
}

/** An option whose value is one of `options`. */
export interface EnumArgDef extends ArgBase {
  type: 'enum'
  options: readonly string[]
  default?: string
  alias?: string | readonly string[]
}

/** A positional argument, taken in the order the definition lists them; required unless `required: false` or a default. */
export interface PositionalArgDef extends ArgBase {
  type: 'positional'
  default?: string
}

export type ArgDef = BooleanArgDef | StringArgDef | EnumArgDef | PositionalArgDef
export type ArgsDef = Readonly<Record<string, ArgDef>>

type ValueOf<D extends ArgDef> = D extends { type: 'boolean' }
  ? boolean
  : D extends { type: 'enum'; options: readonly (infer U)[] }
    ? U
    : string
type ParsedArg<D extends ArgDef> = D extends { default: string | boolean }
  ? ValueOf<D>
  : D extends { required: true }
    ? ValueOf<D>
    : ValueOf<D> | undefined

/**
 * What a command's `run` receives as `args`: each declared argument under its name (an option given as
 * `--max-bytes` is also there as `maxBytes`), and every positional in `_`.
 */
export type ParsedArgs<T extends ArgsDef = ArgsDef> = { _: string[] } & {
  -readonly [K in keyof T]: ParsedArg<T[K]>
}

export interface CommandMeta {
  name?: string
  version?: string
  description?: string
}

export interface CommandContext<T extends ArgsDef = ArgsDef> {
  /** The arguments after the command's name, as given. */
  rawArgs: string[]
  args: ParsedArgs<T>
  cmd: CommandDef<T>
}

/** A subcommand, or a function that loads it when it runs. */
// biome-ignore lint/suspicious/noExplicitAny: a command of any argument shape
export type SubCommand = CommandDef<any> | (() => Promise<CommandDef<any>>)
export type SubCommandsDef = Record<string, SubCommand>

export interface CommandDef<T extends ArgsDef = ArgsDef> {
  meta?: CommandMeta
  args?: T
  subCommands?: SubCommandsDef
  run?: (context: CommandContext<T>) => unknown
}

/**
 * A command definition, typed: `run` gets its `args` parsed to the declared types.
 *
 * @example
 * export const ls = defineCommand({ meta: { name: 'ls' }, args: { json: { type: 'boolean' } }, run({ args }) {} })
 */
export function defineCommand<const T extends ArgsDef = ArgsDef>(def: CommandDef<T>): CommandDef<T> {
  return def
}

/**
 * Parses `rawArgs` against `defs`. Options take `--name value`, `--name=value`, their kebab-case and
 * camelCase spellings and their aliases (`-o value`, `-abc` for three flags); a string option takes the
 * next token whatever it looks like; `--no-name` sets `name` to false; everything after `--` is
 * positional. A flag no definition names is kept under its own name (`strictCommands` rejects it
 * before the command runs, except for commands that pass their flags on). Throws `E_CLI_USAGE` for a
 * missing positional or an enum value outside its options.
 *
 * @example
 * parseArgs(['last', '--max-bytes', '10'], { run: { type: 'positional' }, 'max-bytes': { type: 'string' } }, 'crashlab inspect')
 * // { _: ['last'], run: 'last', 'max-bytes': '10', maxBytes: '10' }
 */
export function parseArgs<T extends ArgsDef>(
  rawArgs: readonly string[],
  defs: T,
  label: string,
): ParsedArgs<T> {
  const byName = new Map<string, [string, ArgDef]>()
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === 'positional') continue
    for (const spelling of spellings(name, def)) byName.set(spelling, [name, def])
  }
  const given: Record<string, string | boolean> = {}
  const positionals: string[] = []
  for (let i = 0; i < rawArgs.length; i++) {
    const token = rawArgs[i] as string
    if (token === '--') {
      positionals.push(...rawArgs.slice(i + 1))
      break
    }
    if (token.startsWith('--') && token.length > 2) {
      const body = token.slice(2)
      const eq = body.indexOf('=')
      const key = eq === -1 ? body : body.slice(0, eq)
      const inline = eq === -1 ? undefined : body.slice(eq + 1)
      const known = byName.get(key)
      if (!known && key.startsWith('no-')) {
        const negated = byName.get(key.slice(3))
        given[negated ? negated[0] : key.slice(3)] = false
        continue
      }
      const [name, def] = known ?? [key, undefined]
      if (def === undefined) given[name] = inline ?? true
      else if (def.type === 'boolean') given[name] = inline === undefined ? true : inline !== 'false'
      else if (inline !== undefined) given[name] = inline
      else given[name] = i + 1 < rawArgs.length ? (rawArgs[++i] as string) : ''
      continue
    }
    if (token.startsWith('-') && token.length > 1 && !/^-\d/.test(token)) {
      const group = token.slice(1)
      for (let j = 0; j < group.length; j++) {
        const known = byName.get(group[j] as string)
        if (!known || known[1].type === 'boolean') {
          given[known ? known[0] : (group[j] as string)] = true
          continue
        }
        // A short option with a value: the rest of the group (`-k10`, `-o=x`) or the next token.
        const rest = group.slice(j + 1).replace(/^=/, '')
        given[known[0]] = rest !== '' ? rest : i + 1 < rawArgs.length ? (rawArgs[++i] as string) : ''
        break
      }
      continue
    }
    positionals.push(token)
  }

  const out: Record<string, unknown> = { _: positionals }
  for (const [name, value] of Object.entries(given)) out[name] = value
  let next = 0
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === 'positional') {
      const value = positionals[next++] ?? def.default
      if (value === undefined && def.required !== false)
        throw usageError(`\`${label}\` needs ${name.toUpperCase()}: ${usageLine(label, defs)}`)
      out[name] = value
      continue
    }
    const value = given[name] ?? def.default
    if (def.type === 'enum' && value !== undefined && !def.options.includes(String(value)))
      throw usageError(
        `--${name} ${JSON.stringify(value)} is not one of ${def.options.join(', ')} for \`${label}\``,
      )
    for (const spelling of [name, kebab(name), camel(name)]) out[spelling] = value
  }
  return out as ParsedArgs<T>
}

/**
 * Runs a command with its arguments: parses them, follows a subcommand named by the first positional,
 * and calls `run`. An unknown subcommand, or none where one is needed, is `E_CLI_USAGE`.
 *
 * @example
 * await runCommand(benchCommand, { rawArgs: ['--episodes', '3'] })
 */
export async function runCommand<T extends ArgsDef>(
  cmd: CommandDef<T>,
  options: { rawArgs: readonly string[]; label?: string },
): Promise<{ result: unknown }> {
  const label = options.label ?? cmd.meta?.name ?? 'crashlab'
  const rawArgs = [...options.rawArgs]
  if (cmd.subCommands) {
    const index = rawArgs.findIndex((arg) => !arg.startsWith('-'))
    const name = index === -1 ? undefined : (rawArgs[index] as string)
    if (name === undefined) {
      if (!cmd.run)
        throw usageError(`\`${label}\` needs a command: ${Object.keys(cmd.subCommands).join(', ')}`)
    } else {
      const sub = await loadSubCommand(cmd.subCommands, name)
      if (!sub)
        throw usageError(
          `unknown command ${JSON.stringify(name)} for \`${label}\`; the commands are ${Object.keys(cmd.subCommands).join(', ')}`,
        )
      return runCommand(sub, { rawArgs: rawArgs.slice(index + 1), label: `${label} ${name}` })
    }
  }
  const args = parseArgs(rawArgs, cmd.args ?? ({} as T), label)
  return { result: await cmd.run?.({ rawArgs, args, cmd }) }
}

/**
 * The `crashlab` process: `--version` (alone), `--help` or `-h` anywhere (the help of the command the
 * arguments name), else the command. What a command throws reaches the user as one error line, never as
 * a stack trace.
 *
 * @example
 * await runMain(main)
 */
export async function runMain(
  cmd: CommandDef,
  rawArgs: readonly string[] = process.argv.slice(2),
): Promise<void> {
  try {
    if (rawArgs.includes('--help') || rawArgs.includes('-h')) {
      const [target, label] = await commandNamed(cmd, rawArgs)
      console.log(await renderUsage(target, label, cmd.meta?.version))
      return
    }
    if (rawArgs.length === 1 && (rawArgs[0] === '--version' || rawArgs[0] === '-v')) {
      console.log(cmd.meta?.version ?? '')
      return
    }
    await runCommand(cmd, { rawArgs })
  } catch (error) {
    reportUnexpected(error)
  }
}

/** The command `rawArgs` name (following subcommands) and its label, for `--help`. */
async function commandNamed(root: CommandDef, rawArgs: readonly string[]): Promise<[CommandDef, string]> {
  let cmd = root
  let label = root.meta?.name ?? 'crashlab'
  for (const arg of rawArgs) {
    if (arg.startsWith('-') || !cmd.subCommands) continue
    const sub = await loadSubCommand(cmd.subCommands, arg)
    if (!sub) break
    cmd = sub
    label = `${label} ${arg}`
  }
  return [cmd, label]
}

async function loadSubCommand(commands: SubCommandsDef, name: string): Promise<CommandDef | undefined> {
  if (!Object.hasOwn(commands, name)) return undefined
  const sub = commands[name] as SubCommand
  return typeof sub === 'function' ? sub() : sub
}

/**
 * A command's `--help`: what it does, how it is called, its arguments, options and subcommands.
 *
 * @example
 * console.log(await renderUsage(ls, 'crashlab ls', VERSION))
 */
export async function renderUsage(cmd: CommandDef, label: string, version?: string): Promise<string> {
  // Loaded here: `--version` and the commands print without it.
  const { pc } = await import('../../colors.ts')
  const defs = cmd.args ?? {}
  const positional = Object.entries(defs).filter(([, def]) => def.type === 'positional')
  const options = Object.entries(defs).filter(
    (entry): entry is [string, OptionDef] => entry[1].type !== 'positional',
  )
  const lines = [pc.gray(`${cmd.meta?.description ?? ''} (${label}${version ? ` v${version}` : ''})`), '']
  const subNames = Object.keys(cmd.subCommands ?? {})
  lines.push(
    `${pc.underline(pc.bold('USAGE'))} ${pc.cyan(subNames.length ? `${label} <command> [OPTIONS]` : usageLine(label, defs))}`,
    '',
  )
  if (positional.length) {
    lines.push(pc.underline(pc.bold('ARGUMENTS')), '')
    lines.push(
      ...columns(
        positional.map(([name, def]) => [name.toUpperCase(), describe(def, pc)]),
        pc,
      ),
      '',
    )
  }
  if (options.length) {
    lines.push(pc.underline(pc.bold('OPTIONS')), '')
    lines.push(
      ...columns(
        options.map(([name, def]) => [optionText(name, def), describe(def, pc)]),
        pc,
      ),
      '',
    )
  }
  if (subNames.length) {
    const rows: Array<[string, string]> = []
    for (const name of subNames) {
      const sub = await loadSubCommand(cmd.subCommands as SubCommandsDef, name)
      rows.push([name, sub?.meta?.description ?? ''])
    }
    lines.push(pc.underline(pc.bold('COMMANDS')), '', ...columns(rows, pc), '')
    lines.push(`Use ${pc.cyan(`${label} <command> --help`)} for more information about a command.`)
  }
  return lines.join('\n')
}

/** `crashlab show [OPTIONS] <RUN>`: how a command is called. */
function usageLine(label: string, defs: ArgsDef): string {
  const parts = [label]
  if (Object.values(defs).some((def) => def.type !== 'positional')) parts.push('[OPTIONS]')
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === 'positional')
      parts.push(
        def.required === false || def.default !== undefined
          ? `[${name.toUpperCase()}]`
          : `<${name.toUpperCase()}>`,
      )
    else if (def.required === true) parts.push(`--${name}${def.valueHint ? ` <${def.valueHint}>` : ''}`)
  }
  return parts.join(' ')
}

type Colors = typeof import('../../colors.ts').pc
type OptionDef = Exclude<ArgDef, PositionalArgDef>

function optionText(name: string, def: OptionDef): string {
  const aliases = def.alias === undefined ? [] : typeof def.alias === 'string' ? [def.alias] : def.alias
  const hint = def.valueHint
    ? ` <${def.valueHint}>`
    : def.type === 'enum'
      ? ` <${def.options.join('|')}>`
      : ''
  const flag = [...aliases.map((a) => (a.length === 1 ? `-${a}` : `--${a}`)), `--${name}`].join(', ') + hint
  return def.type === 'boolean' && def.default === true ? `${flag}, --no-${name}` : flag
}

function describe(def: ArgDef, pc: Colors): string {
  const notes = [def.description ?? '']
  if (
    def.required === true ||
    (def.type === 'positional' && def.required !== false && def.default === undefined)
  )
    notes.push(pc.gray('(required)'))
  if (def.default !== undefined && def.type !== 'boolean') notes.push(pc.gray(`(default: ${def.default})`))
  return notes.filter(Boolean).join(' ')
}

function columns(rows: ReadonlyArray<readonly [string, string]>, pc: Colors): string[] {
  const width = Math.max(...rows.map(([left]) => left.length))
  return rows.map(([left, right]) => `  ${pc.cyan(left.padEnd(width))}  ${right}`.trimEnd())
}

function spellings(name: string, def: OptionDef): string[] {
  const aliases = def.alias === undefined ? [] : typeof def.alias === 'string' ? [def.alias] : def.alias
  return [...new Set([name, kebab(name), camel(name), ...aliases])]
}

export function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
}

export function camel(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())
}
