/**
 * The severities of a finding, from the mildest. A plain list (the schema is `SeveritySchema`), so that
 * what only names them (`crashlab ls`'s options, the matchers) loads no schema module.
 */
export const SEVERITIES = ['info', 'warn', 'error', 'critical'] as const
