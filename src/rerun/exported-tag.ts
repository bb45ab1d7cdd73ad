/**
 * The Vitest tag every test written by `crashlab export-test` carries. The `crashlab()` plugin declares
 * it (Vitest refuses undeclared tags), so `vitest --tags-filter=crashlab-exported` runs those tests alone,
 * as `crashlab vitest --exported` does.
 *
 * @example
 * describe('crashlab:exported', { tags: [EXPORTED_TAG] }, () => {})
 */
export const EXPORTED_TAG = 'crashlab-exported'
