/**
 * Pure rescan of a stored fact under today's privacy rules (the judgement a write applies, see judgePrivacy): what a
 * row written by an older version would now hold back. No database, no clock.
 */
import { indexEntriesOf, judgePrivacy, type IndexEntries } from './fact-input.ts'
import { maskForFile, type CopiedFact } from './text/credential-copy.ts'
import { MASK, maskCredentials, maskQualifiers } from './text/privacy.ts'

/**
 * The version of the privacy rules the stored rows were last rescanned under. Raise it when a rule change should
 * rescan every store once more.
 */
export const PRIVACY_RULES_VERSION = 3

/** The text fields and privacy state of one stored fact: what a file copies of it but its folds and cues. */
export interface StoredPrivacyRow extends Omit<CopiedFact, 'foldedFrom' | 'cues'> {
  readonly modelUseAllowed: boolean
}

/** A row as today's rules would keep it, with its index entries and what the rescan found. */
export interface RescannedRow extends StoredPrivacyRow {
  /**
   * What was found: a credential (masked and hidden from the model), personal data (now sensitive), or none where a
   * personal-data flag stood (`cleared`: an older detector took a look-alike, such as a git SSH remote, for an email).
   */
  readonly found: 'credential' | 'personal' | 'cleared'
  /** Texts judged credentials, masked in the row's source quotes too. */
  readonly known: readonly string[]
  readonly entries: IndexEntries
}

/**
 * Rescan one stored fact. A credential found in its value, qualifiers, subject, property or quote is masked in place and the
 * fact becomes a credential the model never uses: a secret that was kept in clear stays out of sight until the user
 * decides. A fact already stored as a credential (kept in clear on purpose with `refuseCredentials` off) keeps its
 * value and qualifiers and only has its quote masked, as a write would. Personal data now found makes the fact
 * sensitive; its model use is left as it was (the read path withholds sensitive facts unless configured otherwise).
 * A personal-data flag (email, phone, ID number) that today's rules no longer find anywhere in the row is cleared,
 * again leaving model use as it was (an imported fact stays out of model use): the scan alone sets these flags, so a
 * flag the scan no longer supports was its mistake. A credential flag is never cleared: its text was masked.
 * @param row - the stored fact.
 * @returns the row as it should now be stored, or undefined when today's rules change nothing.
 */
export function rescanRow(row: StoredPrivacyRow): RescannedRow | undefined {
  const judged = judgePrivacy(row)
  const quoteMasked = judged.quote !== row.quote
  const storedCredential = row.sensitivity === 'credential'
  const credential = judged.own?.sensitivity === 'credential' || quoteMasked
  let next: StoredPrivacyRow
  if (storedCredential) {
    next = { ...row, quote: judged.quote, modelUseAllowed: false }
  } else if (credential) {
    next = {
      subject: maskCredentials(row.subject),
      property: maskCredentials(row.property),
      value: judged.valueIsCredential ? MASK : maskCredentials(row.value, judged.known),
      qualifiers: maskQualifiers(row.qualifiers),
      quote: judged.quote,
      sensitivity: 'credential',
      modelUseAllowed: false,
    }
  } else if (judged.finding !== undefined && row.sensitivity === null) {
    next = { ...row, sensitivity: judged.finding.sensitivity }
  } else if (judged.finding === undefined && row.sensitivity !== null) {
    next = { ...row, sensitivity: null }
  } else {
    return undefined
  }
  if (sameRow(row, next)) return undefined
  return {
    ...next,
    found: next.sensitivity === 'credential' ? 'credential' : next.sensitivity === null ? 'cleared' : 'personal',
    known: judged.known,
    entries: indexEntriesOf(next),
  }
}

/** A stored row of a copy of the store, of any schema version (folded values and cues only where the version has them). */
export interface CopiedRow extends StoredPrivacyRow {
  readonly foldedFrom: readonly string[]
  readonly cues: readonly string[]
}

/**
 * Judge one row of a copy of the store (a backup, a migration's copy): a fact stored as a credential, or one today's
 * rules judge a credential (a row an older version wrote, see {@link rescanRow}), is masked as every file masks one
 * (see maskForFile) and marked a credential the model never uses; anything else is left as it is.
 * @param row - the row as the copy holds it.
 * @returns the masked row, or undefined when it holds no credential.
 */
export function maskCopiedRow(row: CopiedRow): CopiedRow | undefined {
  const rescanned = rescanRow(row)
  if ((rescanned?.sensitivity ?? row.sensitivity) !== 'credential') return undefined
  const judged: CopiedRow =
    rescanned === undefined
      ? row
      : {
          ...row,
          subject: rescanned.subject,
          property: rescanned.property,
          value: rescanned.value,
          qualifiers: rescanned.qualifiers,
          quote: rescanned.quote,
        }
  return { ...maskForFile({ ...judged, sensitivity: 'credential' }), modelUseAllowed: false }
}

/**
 * Judge one proposed row of a review card in a copy of the store: a row that proposes a fact (it has a subject,
 * property and value) holding a credential, judged as a write judges one, is masked as every file masks a credential
 * fact; any other row (a card's reference to stored facts) is left as it is.
 * @param row - one element of a card's stored rows.
 * @returns the masked row, or undefined when it holds no credential.
 */
export function maskCopiedProposalRow(row: Readonly<Record<string, unknown>>): Record<string, unknown> | undefined {
  const { subject, property, value } = row
  if (typeof subject !== 'string' || typeof property !== 'string' || typeof value !== 'string') return undefined
  const qualifiers = isTextRecord(row['qualifiers']) ? row['qualifiers'] : {}
  const quote = typeof row['quote'] === 'string' ? row['quote'] : null
  const cues = Array.isArray(row['cues']) ? row['cues'].filter((cue): cue is string => typeof cue === 'string') : []
  const judged = judgePrivacy({ subject, property, value, qualifiers, quote, cues })
  if (judged.own?.sensitivity !== 'credential' && judged.quote === quote) return undefined
  const masked = maskForFile({
    subject,
    property,
    value,
    qualifiers,
    quote,
    sensitivity: 'credential',
    foldedFrom: [],
    cues,
  })
  return {
    ...row,
    subject: masked.subject,
    property: masked.property,
    value: masked.value,
    qualifiers: masked.qualifiers,
    quote: masked.quote,
    ...(Array.isArray(row['cues']) ? { cues: masked.cues } : {}),
  }
}

function isTextRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((entry) => typeof entry === 'string')
  )
}

function sameRow(a: StoredPrivacyRow, b: StoredPrivacyRow): boolean {
  return (
    a.subject === b.subject &&
    a.property === b.property &&
    a.value === b.value &&
    a.quote === b.quote &&
    a.sensitivity === b.sensitivity &&
    a.modelUseAllowed === b.modelUseAllowed &&
    JSON.stringify(a.qualifiers) === JSON.stringify(b.qualifiers)
  )
}
