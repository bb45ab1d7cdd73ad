// The record switch is resolved in the core (src/record-modes), with the modes it names; re-exported
// here for `crashlab/vitest`, which has always exported these names.
export { type ModeInputs, parseMode, type ResolvedMode, resolveMode } from '../src/internal.ts'
