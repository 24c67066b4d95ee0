/**
 * Pure: a fact as every file the plugin writes keeps it (the JSONL export, the Markdown library, a backup copy of the
 * store). A credential, which the store keeps in clear only when `refuseCredentials` is off, is masked in every field
 * whatever the flags; personal data is left to the caller's own choice (`includeSensitive`). No database, no clock.
 */
import type { Sensitivity } from '../types.ts'
import { MASK, maskCredentials, maskQualifiers, scanPrivacy } from './privacy.ts'

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
    return Object.entries(qualifiers).every(([key, text]) => fact.qualifiers[key] === text)
      ? fact
      : { ...fact, qualifiers }
  }
  // Qualifier names and values that are credentials by themselves or by their key, masked wherever they occur.
  const known = Object.entries(fact.qualifiers).flatMap(([key, text]) => [
    ...(scanPrivacy('', key)?.sensitivity === 'credential' ? [key] : []),
    ...(scanPrivacy(key, text)?.sensitivity === 'credential' ? [text] : []),
  ])
  const secrets = [fact.value, ...known]
  const mask = (text: string): string => maskCredentials(text, secrets)
  return {
    ...fact,
    subject: maskCredentials(fact.subject, known),
    property: maskCredentials(fact.property, known),
    value: MASK,
    qualifiers: Object.fromEntries(
      Object.entries(maskQualifiers(fact.qualifiers)).map(([key, text]) => [key, mask(text)]),
    ),
    quote: fact.quote === null ? null : mask(fact.quote),
    foldedFrom: fact.foldedFrom.map(() => MASK),
    cues: fact.cues.map(mask),
  }
}
