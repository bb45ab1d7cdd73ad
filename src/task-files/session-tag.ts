/**
 * The tag the plugin's `tasks` give the failed runs of one Vitest session in the store.
 *
 * @example
 * sessionTag('01JH7Z0000000000000000000') // 'session:01JH7Z0000000000000000000'
 */
export function sessionTag(id: string): string {
  return `session:${id}`
}
