/**
 * zod field builders shared by every schema that takes facts from outside (the tools' arguments, the extraction
 * model's answer, the page's route bodies, an import file's lines): one-line names, multi-line texts without control
 * characters, date texts, qualifiers and stored scope texts. One set, so every boundary gives the same verdict.
 */
import { z } from 'zod'

/** Control characters other than tab and line breaks. */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/u
/** Any control character, line breaks included: names are one line. */
const ANY_CONTROL = /[\u0000-\u001F\u007F-\u009F]/u
/** `YYYY-MM-DD`, optionally with a time (hours and minutes, seconds and a fraction optional) and a zone. */
const DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/u

/**
 * A one-line, non-empty name of at most `max` characters.
 * @param max - the cap.
 * @returns the schema.
 */
export const nameField = (max: number) =>
  z
    .string()
    .max(max, `at most ${max} characters`)
    .refine((text) => text.trim() !== '', 'must not be empty')
    .refine((text) => !ANY_CONTROL.test(text), 'must not contain control characters or line breaks')

/**
 * A text of at most `max` characters; line breaks and tabs allowed, other control characters not.
 * @param max - the cap.
 * @returns the schema (it may be empty; add a refinement where it must not).
 */
export const textField = (max: number) =>
  z
    .string()
    .max(max, `at most ${max} characters`)
    .refine((value) => !CONTROL.test(value), 'must not contain control characters')

/** The longest cue a fact keeps. */
export const CUE_CHARS = 80
/** The most cues a fact keeps. */
export const MAX_CUES = 8

/** Up to {@link MAX_CUES} cues: short one-line phrases a later request needing a fact would use. */
export const cuesField = z.array(nameField(CUE_CHARS)).max(MAX_CUES, `at most ${MAX_CUES} cues`)

/** A date or ISO timestamp text that names a real day and time. */
export const dateField = z
  .string()
  .max(40, 'at most 40 characters')
  .refine((value) => {
    const trimmed = value.trim()
    return DATE.test(trimmed) && !Number.isNaN(Date.parse(trimmed.length === 10 ? `${trimmed}T00:00:00Z` : trimmed))
  }, 'must be YYYY-MM-DD or an ISO timestamp')

/** The most qualifiers a fact carries. */
export const MAX_QUALIFIERS = 8

/** Up to {@link MAX_QUALIFIERS} qualifiers: one-line keys (100 characters) and values (300). */
export const qualifiersField = z
  .record(nameField(100), nameField(300))
  .refine((record) => Object.keys(record).length <= MAX_QUALIFIERS, `at most ${MAX_QUALIFIERS} qualifiers`)

/** A stored scope text: `global`, a free-text label of at most 100 characters, or `project:<key>` (a path, longer). */
export const scopeTextField = nameField(4200).refine(
  (text) => (text.startsWith('project:') ? text.length > 'project:'.length : text.length <= 100),
  'a label is at most 100 characters; a project scope names its key',
)
