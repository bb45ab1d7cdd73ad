/**
 * The CLI's imports of Node's built-ins, as `process.getBuiltinModule()` calls. An `import … from
 * 'node:fs'` makes Node build an ES-module facade of the whole built-in, which reads every export once —
 * `fs.ReadStream` loads Node's streams, `util.TextDecoder` its encoding — about 8 ms of a `crashlab ls`
 * that should cost little more than `node -e 0`; `getBuiltinModule` hands over the module itself. The
 * rewrite covers the forms rolldown writes (`import { a, b as c }`, `import x`, `import * as x`,
 * `import x, { a }`, and a bare `import "node:x"`, dropped: a built-in does nothing when imported).
 */
export function builtinsByGetter(code: string): string {
  return code.replace(
    /^import\s+(?:([\w$]+)\s*,\s*)?(?:\*\s+as\s+([\w$]+)|([\w$]+)|\{([^}]*)\})?\s*(?:from\s*)?"(node:[\w/]+)";$/gm,
    (
      line,
      both: string | undefined,
      namespace: string | undefined,
      single: string | undefined,
      named: string | undefined,
      id: string,
    ) => {
      const module = `process.getBuiltinModule(${JSON.stringify(id)})`
      const out: string[] = []
      const whole = both ?? namespace ?? single
      if (whole) out.push(`const ${whole} = ${module};`)
      if (named !== undefined)
        out.push(
          `const { ${named.trim().replace(/([\w$]+)\s+as\s+([\w$]+)/g, '$1: $2')} } = ${whole ?? module};`,
        )
      if (out.length === 0 && !/^import\s*"/.test(line))
        throw new Error(`scripts/build.ts: cannot rewrite ${line}`)
      return out.join(' ')
    },
  )
}
