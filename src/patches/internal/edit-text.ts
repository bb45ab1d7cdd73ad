import type { Part } from '../../case/schema/normalized.ts'
import type { SystemPromptPatch, ToolDescriptionPatch } from '../patch-schema.ts'

/** The edit part of a system prompt or tool description patch (they share their ops). */
export type TextEdit = SystemPromptPatch | ToolDescriptionPatch

/** The edited text, or null when the edit's anchor (a line, a `find`) is not in it. */
export function editText(text: string, edit: TextEdit): string | null {
  switch (edit.op) {
    case 'replace':
      return edit.text
    case 'append':
      return text === '' ? edit.text : text.endsWith('\n') ? text + edit.text : `${text}\n${edit.text}`
    case 'prepend':
      return text === '' ? edit.text : `${edit.text}\n${text}`
    case 'insert': {
      const lines = text.split('\n')
      const anchor = (edit.after ?? edit.before ?? '').trim()
      const at = lines.findIndex((l) => l.trim() === anchor)
      if (at < 0) return null
      lines.splice(edit.after !== undefined ? at + 1 : at, 0, edit.text)
      return lines.join('\n')
    }
    case 'replace_line':
    case 'delete_line': {
      const lines = text.split('\n')
      const wanted = edit.line.trim()
      if (!lines.some((l) => l.trim() === wanted)) return null
      if (edit.op === 'delete_line') return lines.filter((l) => l.trim() !== wanted).join('\n')
      return lines.map((l) => (l.trim() === wanted ? edit.text : l)).join('\n')
    }
    case 'substitute':
      if (!text.includes(edit.find)) return null
      // A function replacer, so `$&` and friends in the replacement stay literal text.
      return edit.all === false
        ? text.replace(edit.find, () => edit.replace)
        : text.replaceAll(edit.find, () => edit.replace)
  }
}

/**
 * Applies a text edit to a prompt made of parts (Anthropic and Gemini allow several text blocks). Whole
 * prompt edits touch the first or last text block, keeping the others and their provider options;
 * line edits and substitutions run block by block. Returns null when the anchor is in no block.
 */
export function editParts(parts: readonly Part[], edit: TextEdit): Part[] | null {
  const texts = parts.flatMap((p, i) => (p.type === 'text' ? [i] : []))
  const out = parts.map((p) => ({ ...p }))
  const setText = (i: number, text: string) => {
    out[i] = { type: 'text', text }
  }
  if (edit.op === 'replace') {
    const rest = out.filter((p) => p.type !== 'text')
    return edit.text === '' ? rest : [{ type: 'text', text: edit.text }, ...rest]
  }
  if (edit.op === 'append' || edit.op === 'prepend') {
    const at = edit.op === 'append' ? texts.at(-1) : texts[0]
    if (at === undefined) {
      const added: Part = { type: 'text', text: edit.text }
      return edit.op === 'append' ? [...out, added] : [added, ...out]
    }
    setText(at, editText((out[at] as { text: string }).text, edit) ?? '')
    return out
  }
  let found = false
  for (const i of texts) {
    const next = editText((out[i] as { text: string }).text, edit)
    if (next === null) continue
    setText(i, next)
    found = true
    // One insert, and one first-occurrence substitution, in the whole prompt.
    if (edit.op === 'insert' || (edit.op === 'substitute' && edit.all === false)) break
  }
  return found ? out : null
}

/** What an edit looks for, as a user would name it in a message. */
export function describeAnchor(edit: TextEdit): string {
  switch (edit.op) {
    case 'insert':
      return `a line reading ${JSON.stringify(edit.after ?? edit.before)}`
    case 'replace_line':
    case 'delete_line':
      return `a line reading ${JSON.stringify(edit.line)}`
    case 'substitute':
      return `the text ${JSON.stringify(edit.find)}`
    default:
      return 'the text'
  }
}
