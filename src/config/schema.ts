import type { z } from 'zod'
import { ChecksOptionsSchema } from '../checks/detectors/options.ts'
import { PriceOverrideSchema } from '../cost/index.ts'
import { lazySchema, zod } from '../lazy-zod.ts'
import type { RedactionHook } from '../redact/types.ts'

const HookFnSchema = lazySchema(() =>
  zod.custom<RedactionHook>((v) => typeof v === 'function', 'expected a function'),
)

/** The config file's `redaction` key: the same shape as `createRedactor`'s options (RegExps and functions allowed). */
export const RedactionConfigSchema = lazySchema(() =>
  zod.strictObject({
    patterns: zod
      .array(
        zod.strictObject({
          id: zod.string().min(1),
          pattern: zod.instanceof(RegExp, { message: 'expected a RegExp' }),
          marker: zod.string().optional(),
          hint: zod.union([zod.string(), zod.array(zod.string())]).optional(),
        }),
      )
      .optional(),
    keys: zod.array(zod.string().min(1)).optional(),
    hooks: zod
      .union([
        zod.array(zod.strictObject({ id: zod.string().min(1), fn: HookFnSchema })),
        zod.record(zod.string(), HookFnSchema),
      ])
      .optional(),
  }),
)

/** Where production capture and the CLI keep runs (`.crashlab/` by default, or `$CRASHLAB_DIR`). */
export const StoreConfigSchema = lazySchema(() =>
  zod.strictObject({
    /** The store folder, resolved against the config file's folder (default `.crashlab` beside it). */
    dir: zod.string().min(1).optional(),
    /**
     * How many Vitest sessions (test runs) the Vitest plugin keeps indexed in the store, for
     * `crashlab ls --session last` and refs by cassette path or test name. Older sessions' entries are
     * dropped; the cassettes stay. `0` turns the indexing off. Default 20.
     */
    keepSessions: zod.number().int().min(0).optional(),
  }),
)

/**
 * The config file's `mcp` key: MCP servers, by the name each gives in its `initialize` answer
 * (`serverInfo.name`, as an MCP step's `mcp.server` holds it).
 */
export const McpConfigSchema = lazySchema(() =>
  zod.strictObject({
    /**
     * Which MCP tools have side effects, over what their servers' annotations say (a tool is side-effect
     * free only when annotated `readOnlyHint: true`): `true` or `false` for all of a server's tools, or
     * an object of tool names to `true` or `false`. A side-effect tool never runs at replay and is
     * blocked in a fork past its fork step unless the parent run holds the same call.
     */
    sideEffects: zod
      .record(
        zod.string().min(1),
        // Checked by hand: a union would name the server, never the tool whose value is wrong.
        zod.custom<boolean | Record<string, boolean>>().superRefine((value, ctx) => {
          if (typeof value === 'boolean') return
          if (typeof value !== 'object' || value === null || Array.isArray(value)) {
            ctx.addIssue({ code: 'custom', message: 'expected true, false, or an object of tool names' })
            return
          }
          for (const [tool, flag] of Object.entries(value)) {
            if (typeof flag !== 'boolean')
              ctx.addIssue({ code: 'custom', path: [tool], message: 'expected true or false' })
          }
        }),
      )
      .optional(),
  }),
)

/**
 * The project config (`crashlab.config.ts`), read the same way by the Vitest plugin, the CLI and
 * production capture. Every key is optional; the nearer setting wins (per test, then plugin options,
 * then this file).
 */
export const CrashlabConfigSchema = lazySchema(() =>
  zod.strictObject({
    /** Runtime detectors, budgets and the circuit breaker. */
    checks: ChecksOptionsSchema.optional(),
    /** Price overrides in USD per million tokens, keyed by model (`gpt-4o`) or `provider/model`. */
    prices: zod.record(zod.string(), PriceOverrideSchema).optional(),
    /** Redaction rules added to crashlab's defaults for every cassette, baseline, export and report. */
    redaction: RedactionConfigSchema.optional(),
    store: StoreConfigSchema.optional(),
    /**
     * Hosts a replay may reach with requests that are not model calls (a database or service container):
     * host names (any port), `host:port` or base URLs. Loopback is always reachable; everything else a
     * replay's cassette does not answer is refused.
     */
    allowHosts: zod.array(zod.string().trim().min(1)).optional(),
    /** MCP servers: which of their tools have side effects (`sideEffects`), over their annotations. */
    mcp: McpConfigSchema.optional(),
  }),
)

/**
 * What a user writes in `crashlab.config.ts` (defaults not filled in).
 *
 * @example
 * const config: CrashlabConfig = { checks: { maxSteps: 20, circuitBreaker: true }, prices: { 'my-model': { input: 1, output: 4 } } }
 */
export type CrashlabConfig = z.input<typeof CrashlabConfigSchema>
