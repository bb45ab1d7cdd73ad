import { type ArgsDef, type CommandDef, camel, kebab, type SubCommandsDef } from './command.ts'
import { reportUnexpected } from './report-error.ts'
import { usageError } from './usage-error.ts'

// Commands of every argument shape pass through here.
// biome-ignore lint/suspicious/noExplicitAny: any command definition, whatever its arguments
type AnyCommand = CommandDef<any>

/** Options of `strictCommands`. */
export interface StrictCommandsOptions {
  /** Commands whose unknown flags are not errors: they pass them on (`crashlab vitest` → Vitest). */
  passThrough?: readonly string[]
  /** The name of the parent command, for messages (`crashlab`). */
  parent?: string
}

/**
 * Wraps every subcommand of the CLI so that (1) a flag the command does not declare is an error
 * (`E_CLI_USAGE`, exit 1) before the command runs, except for the `passThrough` commands; and (2) no
 * error escapes as a stack trace: a CrashlabError is printed by `reportError`, anything else (a bug) as
 * one `[crashlab] internal error` line, with the stack only when `CRASHLAB_DEBUG` is set. Done once
 * here rather than in each command, so a newly registered command gets both.
 *
 * @example
 * defineCommand({ meta: { name: 'crashlab' }, subCommands: strictCommands({ ls, vitest }, { passThrough: ['vitest'] }) })
 */
export function strictCommands(
  commands: SubCommandsDef,
  options: StrictCommandsOptions = {},
): SubCommandsDef {
  const parent = options.parent ?? 'crashlab'
  const out: SubCommandsDef = {}
  for (const [name, command] of Object.entries(commands)) {
    const label = `${parent} ${name}`
    const passThrough = options.passThrough?.includes(name) ?? false
    // A command loaded on use (`() => import(…)`) is wrapped once it is loaded.
    out[name] =
      typeof command === 'function'
        ? async () => strictCommand(await command(), label, passThrough)
        : strictCommand(command, label, passThrough)
  }
  return out
}

function strictCommand(command: AnyCommand, label: string, passThrough: boolean): AnyCommand {
  const run = command.run
  const subCommands = command.subCommands && strictCommands(command.subCommands, { parent: label })
  if (!run) return { ...command, subCommands }
  const declared: ArgsDef | undefined = command.args
  // Required options are checked here, after the unknown flags, so that a missing `--output` does not
  // hide a `--bogus` given with it.
  const required = declared
    ? Object.entries(declared).filter(([, def]) => def.type !== 'positional' && def.required === true)
    : []
  const args = declared
    ? Object.fromEntries(
        Object.entries(declared).map(([name, def]) => [
          name,
          def.type !== 'positional' && def.required === true ? { ...def, required: false } : def,
        ]),
      )
    : command.args
  return {
    ...command,
    args,
    subCommands,
    async run(context) {
      try {
        if (!passThrough && !command.subCommands) rejectUnknownFlags(context.rawArgs, declared ?? {}, label)
        for (const [name] of required) {
          const value = (context.args as Record<string, unknown>)[name]
          if (value === undefined || value === '') throw usageError(`\`${label}\` needs --${name}`)
        }
        return await run(context)
      } catch (error) {
        reportUnexpected(error)
      }
    },
  }
}

/**
 * Throws `E_CLI_USAGE` for the first flag of `rawArgs` that `args` does not declare, in any of the
 * spellings the parser accepts (`--max-bytes`, `--maxBytes`, `--no-json` for a boolean, `-o` for an
 * alias). Values of string options are skipped, and everything after `--` is positional.
 *
 * @example
 * rejectUnknownFlags(['--bogus'], ls.args, 'crashlab ls') // throws: unknown option --bogus
 */
export function rejectUnknownFlags(rawArgs: readonly string[], args: ArgsDef, label: string): void {
  const valueFlags = new Set<string>()
  const known = new Set<string>(['help', 'h'])
  for (const [name, def] of Object.entries(args)) {
    if (def.type === 'positional') continue
    const alias = (def as { alias?: string | string[] }).alias
    const aliases = alias === undefined ? [] : Array.isArray(alias) ? alias : [alias]
    for (const spelling of [name, kebab(name), camel(name), ...aliases]) {
      known.add(spelling)
      if (def.type === 'string' || def.type === 'enum') valueFlags.add(spelling)
    }
  }
  for (let i = 0; i < rawArgs.length; i++) {
    const token = rawArgs[i]!
    if (token === '--') return
    if (!token.startsWith('-') || token === '-' || /^-\d/.test(token)) continue
    const long = token.startsWith('--')
    const body = token.slice(long ? 2 : 1)
    const eq = body.indexOf('=')
    const name = eq === -1 ? body : body.slice(0, eq)
    const names = long ? [name] : [...name]
    for (const n of names) {
      const bare = long && n.startsWith('no-') && known.has(n.slice(3)) ? n.slice(3) : n
      if (!known.has(bare)) throw unknownFlag(long ? `--${n}` : `-${n}`, args, label)
    }
    // `--dir path`: the next token is the value, whatever it looks like.
    if (eq === -1 && valueFlags.has(names[names.length - 1]!)) i++
  }
}

function unknownFlag(flag: string, args: ArgsDef, label: string) {
  const flags = Object.entries(args)
    .filter(([, def]) => def.type !== 'positional')
    .map(([name]) => `--${name}`)
  const shown = flag.length > 60 ? `${flag.slice(0, 60)}…` : flag
  return usageError(
    `unknown option ${JSON.stringify(shown)} for \`${label}\`; ${flags.length ? `its options are ${flags.join(', ')}` : 'it takes no options'}`,
  )
}
