/**
 * Pure: a fact as every file the plugin writes keeps it (the JSONL export, the Markdown library, a backup copy of the
 * store). A credential, which the store keeps in clear only when `refuseCredentials` is off, is masked in every field
 * whatever the flags; personal data is left to the caller's own choice (`includeSensitive`). No database, no clock.
 */
import { judgePrivacy } from './fact-input.ts'
import { rescanRow, type StoredPrivacyRow } from './privacy-rescan.ts'
import { MASK, maskCredentials, maskQualifiers } from './text/privacy.ts'
import type { Sensitivity } from './types.ts'

/** The text fields of a fact that a file may carry, with its sensitivity. */
export interface CopiedFact {
  readonly subject: string
  readonly property: string
  readonly value: string
  readonly qualifiers: Readonly<Record<string, string>>
  readonly quote: string | null
  readonly sensitivity: Sensitivity | null
  readonly foldedFrom: readonly string[]
  readonly cues: readonly string[]
}

/**
 * A fact as a file may hold it. A credential fact has its value replaced by {@link MASK} whole, every qualifier,
 * subject, property, quote and cue text that holds the credential (or any other) masked, and its prior folded values
 * masked; any other fact keeps its text, except that a qualifier that is itself a credential is masked (as a view
 * shows it).
 * @param fact - the stored fact.
 * @returns the same fact with its credentials masked; the input when there is nothing to mask.
 */
export function maskForFile<T extends CopiedFact>(fact: T): T {
  if (fact.sensitivity !== 'credential') {
    const qualifiers = maskQualifiers(fact.qualifiers)
    return Object.entries(qualifiers).every(([key, text]) => fact.qualifiers[key] === text) ? fact : { ...fact, qualifiers }
  }
  const { known } = judgePrivacy(fact)
  const secrets = [fact.value, ...known]
  const mask = (text: string): string => maskCredentials(text, secrets)
  return {
    ...fact,
    subject: maskCredentials(fact.subject, known),
    property: maskCredentials(fact.property, known),
    value: MASK,
    qualifiers: Object.fromEntries(Object.entries(maskQualifiers(fact.qualifiers)).map(([key, text]) => [key, mask(text)])),
    quote: fact.quote === null ? null : mask(fact.quote),
    foldedFrom: fact.foldedFrom.map(() => MASK),
    cues: fact.cues.map(mask),
  }
}

/** A stored row of a copy of the store, of any schema version (folded values and cues only where the version has them). */
export interface CopiedRow extends StoredPrivacyRow {
  readonly foldedFrom: readonly string[]
  readonly cues: readonly string[]
}

/**
 * Judge one row of a backup copy: a fact stored as a credential, or one today's privacy rules judge a credential
 * (a row an older version wrote, see rescanRow), is masked as {@link maskForFile} masks it and marked a credential
 * the model never uses; anything else is left as it is.
 * @param row - the row as the copy holds it.
 * @returns the masked row, or undefined when it holds no credential.
 */
export function maskCopiedRow(row: CopiedRow): CopiedRow | undefined {
  const rescanned = rescanRow(row)
  if ((rescanned?.sensitivity ?? row.sensitivity) !== 'credential') return undefined
  const base: CopiedRow = rescanned === undefined ? row : { ...row, ...pick(rescanned) }
  const masked = maskForFile({ ...base, sensitivity: 'credential' })
  return { ...masked, modelUseAllowed: false }
}

function pick(row: StoredPrivacyRow): StoredPrivacyRow {
  const { subject, property, value, qualifiers, quote, sensitivity, modelUseAllowed } = row
  return { subject, property, value, qualifiers, quote, sensitivity, modelUseAllowed }
}
