/**
 * Pure fold guard: whether two values are one recurring line (a nightly backup, a daily self-check) written on
 * different days. Two values fold when each holds exactly one calendar date that the reader in
 * `text/date-mentions.ts` can place, at least {@link FOLD_MIN_OTHER} letters or digits besides it, and the same
 * text around it once width, case and spacing are folded. So `187`/`188` and `port 7801`/`port 7802` (no date),
 * `from 2026-01-01 to 2026-02-01` (two dates) and `from 20260101 to 20260201` (eight digits are not read as a date)
 * never fold. A recurring line reports a day that has come: given the instant the incoming value is written, a date
 * more than a day after it is a plan ("the licence expires on 2027-12-01"), and a plan that moves is a correction
 * to keep as history, not a recurrence, so it does not fold either. No database, no clock.
 */
import { dateMentions, type DateMention } from '../text/date-mentions.ts'
import { foldText } from '../text/normalize.ts'

/** How many prior values a folded row keeps. */
export const FOLD_HISTORY = 20

/** Letters or digits a value must hold besides its date. */
export const FOLD_MIN_OTHER = 4

/** Why a value cannot fold at all. */
export type FoldRefusal = 'no_date' | 'several_dates' | 'unreadable_date' | 'too_short'

/** A value read as a line around one date. */
export type FoldShape =
  | {
      readonly ok: true
      /** The folded text with the date replaced by one placeholder: equal templates are the same line. */
      readonly template: string
      /** The date as `YYYY-MM-DD`. */
      readonly day: string
      /** Orders two dates of the same line: the day, then the UTC instant of a timestamp. */
      readonly order: string
      /** Letters and digits besides the date. */
      readonly others: number
    }
  | { readonly ok: false; readonly reason: FoldRefusal }

/** Whether an incoming value folds into a stored one. */
export type FoldVerdict =
  | {
      readonly fold: true
      /** The incoming date is the stored one or later, so the incoming value becomes the row's value. */
      readonly newer: boolean
    }
  | { readonly fold: false; readonly reason: FoldRefusal | 'different_text' | 'future_date' }

/** What the guard knows about the incoming write. */
export interface FoldContext {
  /** When the incoming value is written (ISO UTC); unset, its date is not compared with anything. */
  readonly writtenAt?: string
}

/** Stands for the date in a template; folded text never holds it. */
const PLACEHOLDER = '\u0000'

/**
 * Read a value as a line around one date.
 * @param value - a stored or incoming value (or any text, such as a property name).
 * @returns the template, the date and the count of other characters; or why the value cannot fold.
 */
export function foldShape(value: string): FoldShape {
  return shapeOf(value, 0)
}

/**
 * Read a dated property as a line around one date, the line being its subject and the property together
 * ("db-backup · 2026-11-05 run"): the subject's letters and digits count among the {@link FOLD_MIN_OTHER} others,
 * as they would if the line were one value, but the date must sit in the property and the property must name
 * something besides it (a property that is only a date names an event, not a recurring line). The template is the
 * property's alone.
 * @param subject - the fact's subject (entity key).
 * @param property - the property name.
 * @returns the property's template, date and other characters (the subject's included); or why it cannot fold.
 */
export function propertyFoldShape(subject: string, property: string): FoldShape {
  const subjectOthers = lettersAndDigits(foldText(subject.normalize('NFKC')))
  const shape = shapeOf(property, subjectOthers)
  if (shape.ok && shape.others === subjectOthers) return { ok: false, reason: 'too_short' }
  return shape
}

/** Read a value around one date, counting `besides` letters or digits of the line it stands in. */
function shapeOf(value: string, besides: number): FoldShape {
  const text = value.normalize('NFKC')
  const days = dateMentions(text, { timestamps: true }).filter((mention) => mention.day !== undefined)
  const [date] = days
  if (date === undefined) return { ok: false, reason: 'no_date' }
  if (days.length > 1) return { ok: false, reason: 'several_dates' }
  if (!date.valid) return { ok: false, reason: 'unreadable_date' }
  const template = foldText(`${text.slice(0, date.index)}${PLACEHOLDER}${text.slice(date.index + date.length)}`)
  const others = lettersAndDigits(template) + besides
  if (others < FOLD_MIN_OTHER) return { ok: false, reason: 'too_short' }
  const day = isoDay(date)
  return { ok: true, template, day, order: date.time === undefined ? day : instantOf(day, date.time), others }
}

/**
 * Whether `incoming` is `stored` written on another day (or the same day spelt another way).
 * @param stored - the value a row holds.
 * @param incoming - the value a write brings.
 * @param context - when the incoming value is written: its date may lie at most one day after (a zone ahead of UTC).
 * @returns fold with whether the incoming date is not earlier, or why not (the incoming value is judged first).
 */
export function foldVerdict(stored: string, incoming: string, context: FoldContext = {}): FoldVerdict {
  const next = foldShape(incoming)
  if (!next.ok) return { fold: false, reason: next.reason }
  if (context.writtenAt !== undefined && next.day > dayAfter(context.writtenAt))
    return { fold: false, reason: 'future_date' }
  const held = foldShape(stored)
  if (!held.ok) return { fold: false, reason: held.reason }
  if (next.template !== held.template) return { fold: false, reason: 'different_text' }
  return { fold: true, newer: next.order >= held.order }
}

/**
 * The fold history after one more fold: the prior values in arrival order, newest last, at most
 * {@link FOLD_HISTORY}.
 * @param previous - the history so far.
 * @param value - the value the fold displaced (or absorbed).
 * @returns the new history.
 */
export function foldedHistory(previous: readonly string[], value: string): string[] {
  return [...previous, value].slice(-FOLD_HISTORY)
}

function lettersAndDigits(text: string): number {
  return [...text.matchAll(/[\p{L}\p{N}]/gu)].length
}

function dayAfter(iso: string): string {
  return new Date(Date.parse(iso) + 24 * 60 * 60 * 1000).toISOString().slice(0, 10)
}

function isoDay(date: DateMention): string {
  return `${String(date.year)}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`
}

/** The UTC instant of a timestamp (UTC when it names no offset), so two zones order correctly. */
function instantOf(day: string, time: string): string {
  const stamp = /(?:Z|[+-]\d{2}:?\d{2})$/u.test(time) ? `${day}T${time}` : `${day}T${time}Z`
  const parsed = Date.parse(stamp)
  return Number.isNaN(parsed) ? day : new Date(parsed).toISOString()
}
