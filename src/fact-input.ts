/**
 * Pure preparation of a write: normalize the subject, property, qualifiers and value, compute the slot, claim and
 * evidence keys, run the privacy scan (over the value, each qualifier, the subject and the property), and check the validity
 * window. The store receives only prepared writes, and their quotes hold no credential in clear.
 */
import { dateArgumentInstant } from './text/dates.ts'
import { extractIdentifiers } from './text/identifiers.ts'
import {
  canonicalEntity,
  canonicalPredicate,
  canonicalQualifiers,
  canonicalValue,
  claimKeyOf,
  evidenceKeyOf,
  slotKeyOf,
  tombstoneKeysOf,
  type TombstoneKeys,
} from './text/normalize.ts'
import { maskCredentials, scanPrivacy, scanQuote, type PrivacyFinding } from './text/privacy.ts'
import { MAX_CUES } from './text/fields.schema.ts'
import { indexText } from './text/tokenize.ts'
import { GLOBAL_SCOPE, projectKeyOfScope, projectNameOf, projectScope } from './project/project-ref.ts'
import type { Anchor, Evidence, FactInput, Origin, ProjectRef, Sensitivity } from './types.ts'

/** A write ready for the store. */
export interface PreparedWrite {
  readonly subject: string
  readonly entityKey: string
  readonly property: string
  readonly predicateKey: string
  readonly qualifiers: Readonly<Record<string, string>>
  readonly qualifierKey: string
  readonly scope: string
  /** The project of a project-scoped write (its key is in the slot, claim and evidence keys); null otherwise. */
  readonly project: ProjectRef | null
  readonly value: string
  readonly slotKey: string
  readonly claimKey: string
  readonly evidenceKey: string
  /** The keys a tombstone of this claim is held under, whatever its scope (the write path checks them). */
  readonly tombstoneKeys: TombstoneKeys
  readonly evidence: Evidence
  readonly confidence: number
  /** Below this confidence the write becomes a proposal (unset: the policy's default floor). */
  readonly confidenceFloor?: number
  readonly inferred: boolean
  readonly multi: boolean
  readonly sensitivity: Sensitivity | null
  /** Why the value is sensitive, for the answer. */
  readonly sensitivityReason: string | null
  readonly modelUseAllowed: boolean
  readonly validFrom: string
  readonly validTo: string | null
  readonly scheduled: boolean
  /** Imports never replace a current value; a difference becomes a conflict. */
  readonly mayReplace: boolean
  /**
   * Whether the value may fold into a row holding the same line on another day. A user's page edit is a correction,
   * kept as history, and an import restores or states rows as they were, so neither folds.
   */
  readonly mayFold: boolean
  /** Only the same claim key is a duplicate; the near-duplicate gate is skipped. */
  readonly exactOnly: boolean
  readonly origin: Origin
  readonly anchor: Anchor | null
  /** The quote with every credential in it masked (the value too, when the value is a credential). */
  readonly quote: string | null
  /** Terms for the full-text index. */
  readonly terms: string
  /** The cues, tidied (at most {@link MAX_CUES}); none when the write gave none. */
  readonly cues: readonly string[]
  /** Terms for the cue index; '' for no cues or a credential. */
  readonly cueTerms: string
  /** Exact identifiers for the identifier channel. */
  readonly identifiers: readonly string[]
}

/** The outcome of preparing a write. */
export type PrepareResult =
  | { readonly ok: true; readonly write: PreparedWrite }
  | { readonly ok: false; readonly code: 'invalid_arguments' | 'credential_refused'; readonly message: string }

/** Policy switches that affect preparation. */
export interface PreparePolicy {
  readonly refuseCredentials: boolean
  /** The zone bare dates are read in. */
  readonly timeZone: string
}

/** What the search indexes hold for one fact. */
export interface IndexEntries {
  readonly terms: string
  readonly identifiers: readonly string[]
}

/**
 * The full-text terms and exact identifiers of a fact. A credential's value and qualifiers are never indexed, nor is
 * any qualifier value that is itself a credential (a row written before qualifiers were scanned): a fact must not be
 * findable by its secret.
 * @param fact - the fact's text fields and sensitivity.
 * @returns its index entries.
 */
export function indexEntriesOf(fact: {
  readonly subject: string
  readonly property: string
  readonly value: string
  readonly qualifiers: Readonly<Record<string, string>>
  readonly sensitivity: string | null
}): IndexEntries {
  const credential = fact.sensitivity === 'credential'
  const qualifierTexts = Object.entries(fact.qualifiers).flatMap(([key, text]) =>
    scanPrivacy(key, text)?.sensitivity === 'credential' ? [] : [text],
  )
  return {
    terms: indexText(
      credential ? [fact.subject, fact.property] : [fact.subject, fact.property, fact.value, ...qualifierTexts],
    ),
    identifiers: credential ? [] : extractIdentifiers([fact.subject, fact.property, fact.value].join('\n')),
  }
}

/** The keys and index entries of a stored fact, as they read under a subject (and property) spelling. */
export interface FactKeys {
  readonly subject: string
  readonly entityKey: string
  readonly property: string
  readonly predicateKey: string
  readonly slotKey: string
  readonly claimKey: string
  readonly evidenceKey: string
  /** The keys a tombstone of this claim is held under, whatever its scope. */
  readonly tombstoneKeys: TombstoneKeys
  readonly terms: string
  readonly identifiers: readonly string[]
}

/**
 * Recompute a stored fact's keys under another subject (and property), through the same canonicalisation a write
 * uses (an alias moving a fragment's facts to their canonical entity, a renamed property); a project-scoped fact
 * keeps its project in its keys.
 * @param fact - the stored fact's property, value, qualifiers, quote, sensitivity and scope.
 * @param subject - the subject as the fact will now be written.
 * @param property - the property as the fact will now be written; its own by default.
 * @returns its keys and index entries under those names.
 */
export function keysUnder(
  fact: {
    readonly property: string
    readonly value: string
    readonly qualifiers: Readonly<Record<string, string>>
    readonly quote: string | null
    readonly sensitivity: string | null
    readonly scope: string
  },
  subject: string,
  property: string = fact.property,
): FactKeys {
  const entityKey = canonicalEntity(subject)
  const predicateKey = canonicalPredicate(property)
  const qualifierKey = canonicalQualifiers(fact.qualifiers)
  const projectKey = projectKeyOfScope(fact.scope)
  const claimKey = claimKeyOf(entityKey, predicateKey, qualifierKey, canonicalValue(fact.value), projectKey)
  return {
    subject,
    entityKey,
    property,
    predicateKey,
    slotKey: slotKeyOf(entityKey, predicateKey, qualifierKey, projectKey),
    claimKey,
    evidenceKey: evidenceKeyOf(fact.quote, claimKey, projectKey),
    tombstoneKeys: tombstoneKeysOf(entityKey, predicateKey, qualifierKey, canonicalValue(fact.value), fact.quote),
    ...indexEntriesOf({
      subject,
      property,
      value: fact.value,
      qualifiers: fact.qualifiers,
      sensitivity: fact.sensitivity,
    }),
  }
}

/** The canonical names a write lands under when its subject or property is an alias (see store/alias-rows.ts). */
export interface CanonicalNames {
  readonly subject: string
  readonly property: string
}

/**
 * A prepared write as it reads under its canonical names: subject, property and every key and index entry derived
 * from them recomputed as prepareWrite computes them; the value, qualifiers, scope, evidence and privacy verdict stay.
 * @param write - the prepared write under the names it was given.
 * @param names - the canonical subject and property.
 * @returns the write under those names (the same object when they are the names it has).
 */
export function retargetWrite(write: PreparedWrite, names: CanonicalNames): PreparedWrite {
  if (names.subject === write.subject && names.property === write.property) return write
  const keys = keysUnder({ ...write, sensitivity: write.sensitivity }, names.subject, names.property)
  return {
    ...write,
    subject: keys.subject,
    entityKey: keys.entityKey,
    property: keys.property,
    predicateKey: keys.predicateKey,
    slotKey: keys.slotKey,
    claimKey: keys.claimKey,
    evidenceKey: keys.evidenceKey,
    tombstoneKeys: keys.tombstoneKeys,
    terms: keys.terms,
    identifiers: keys.identifiers,
  }
}

/** What the privacy rules make of a fact's text fields (see {@link judgePrivacy}). */
export interface PrivacyJudgement {
  /** The strongest finding in the fact's own fields (value, qualifiers, subject, property): a credential before personal data. */
  readonly own: PrivacyFinding | undefined
  /** The finding the fact is stored under: its own, else personal data in its masked quote. */
  readonly finding: PrivacyFinding | undefined
  /** Whether the value alone is a credential. */
  readonly valueIsCredential: boolean
  /** The texts judged credentials (the value, qualifier names or values), masked wherever they occur. */
  readonly known: readonly string[]
  /** The quote with every credential in it masked, or null. */
  readonly quote: string | null
}

/**
 * Judge a fact's text fields under the privacy rules a write applies. The value is judged alone with its property,
 * so no quote around it can hide it from the property rule; each qualifier's value likewise with its key as the
 * property; the subject and the property as plain text. A credential anywhere wins over personal data. The quote is masked, not
 * judged for credentials (see scanQuote): the patterns that judge a subject mask it there anyway, and a value or
 * qualifier that is a credential only by its name is masked by name.
 * @param fields - the tidied subject, property, value and qualifiers, and the quote (null when none).
 * @returns what was found, and the quote as the fact may keep it.
 */
export function judgePrivacy(fields: {
  readonly subject: string
  readonly property: string
  readonly value: string
  readonly qualifiers: Readonly<Record<string, string>>
  readonly quote: string | null
  readonly cues?: readonly string[]
}): PrivacyJudgement {
  const ofValue = scanPrivacy(fields.property, fields.value)
  const ofQualifiers = Object.entries(fields.qualifiers).flatMap(([key, text]) => [
    { text: key, finding: scanPrivacy('', key, 'qualifier name') },
    { text, finding: scanPrivacy(key, text, `qualifier "${maskCredentials(key)}"`) },
  ])
  // A cue is judged as a qualifier is: a credential in one refuses the write, personal data makes the fact sensitive.
  const ofCues = (fields.cues ?? []).map((cue) => ({ text: cue, finding: scanPrivacy('', cue, 'cue') }))
  const findings = [
    ofValue,
    ...ofQualifiers.map((entry) => entry.finding),
    ...ofCues.map((entry) => entry.finding),
    scanPrivacy('', fields.subject, 'subject'),
    scanPrivacy('', fields.property, 'property'),
  ]
  const own =
    findings.find((entry) => entry?.sensitivity === 'credential') ?? findings.find((entry) => entry !== undefined)
  const valueIsCredential = ofValue?.sensitivity === 'credential'
  const known = [
    ...(valueIsCredential ? [fields.value] : []),
    ...[...ofQualifiers, ...ofCues].flatMap((entry) =>
      entry.finding?.sensitivity === 'credential' ? [entry.text] : [],
    ),
  ]
  const quoted = fields.quote === null ? undefined : scanQuote(fields.quote, known)
  return { own, finding: own ?? quoted?.finding, valueIsCredential, known, quote: quoted?.quote ?? null }
}

/**
 * Prepare one write.
 * @param input - the caller's fact.
 * @param now - the current ISO UTC instant.
 * @param policy - privacy switches.
 * @returns the prepared write, or a refusal with a closed code and a sentence.
 */
export function prepareWrite(input: FactInput, now: string, policy: PreparePolicy): PrepareResult {
  const subject = tidy(input.subject)
  const property = tidy(input.property)
  const value = input.value.trim()
  const entityKey = canonicalEntity(subject)
  const predicateKey = canonicalPredicate(property)
  const valueKey = canonicalValue(value)
  if (entityKey === '') return refuse('subject has no letters or digits')
  if (predicateKey === '') return refuse('property has no letters or digits')
  if (valueKey === '') return refuse('value is empty')

  const validFrom = input.validFrom === undefined ? now : dateArgumentInstant(input.validFrom, policy.timeZone, 'start')
  if (validFrom === undefined) return refuse('valid_from is not a date')
  const validTo =
    input.validTo === undefined ? null : (dateArgumentInstant(input.validTo, policy.timeZone, 'start') ?? 'invalid')
  if (validTo === 'invalid') return refuse('valid_to is not a date')
  if (validTo !== null && validTo <= validFrom) return refuse('valid_to must be later than valid_from')
  if (validTo !== null && validTo <= now) return refuse('valid_to is already in the past; nothing current to store')

  const qualifiers = tidyQualifiers(input.qualifiers)
  const given = input.quote === undefined || input.quote.trim() === '' ? null : input.quote.trim()
  const cues = tidyCues(input.cues)
  const judged = judgePrivacy({ subject, property, value, qualifiers, quote: given, cues })
  const own = judged.own
  if (own?.sensitivity === 'credential' && policy.refuseCredentials) {
    return { ok: false, code: 'credential_refused', message: `refused: ${own.reason}; credentials are never stored` }
  }
  const isCredential = own?.sensitivity === 'credential'
  const quote = judged.quote
  const finding = judged.finding
  const qualifierKey = canonicalQualifiers(qualifiers)
  const { scope, project } = scopeOf(input)
  const projectKey = project?.key ?? null
  const claimKey = claimKeyOf(entityKey, predicateKey, qualifierKey, valueKey, projectKey)
  return {
    ok: true,
    write: {
      subject,
      entityKey,
      property,
      predicateKey,
      qualifiers,
      qualifierKey,
      scope,
      project,
      value,
      slotKey: slotKeyOf(entityKey, predicateKey, qualifierKey, projectKey),
      claimKey,
      evidenceKey: evidenceKeyOf(quote, claimKey, projectKey),
      tombstoneKeys: tombstoneKeysOf(entityKey, predicateKey, qualifierKey, valueKey, quote),
      evidence: input.evidence,
      confidence: input.confidence ?? 1,
      ...(input.confidenceFloor === undefined ? {} : { confidenceFloor: input.confidenceFloor }),
      inferred: input.inferred ?? false,
      multi: input.multi ?? false,
      sensitivity: finding?.sensitivity ?? null,
      sensitivityReason: finding?.reason ?? null,
      // Imported sensitive facts are the file's, not the user's statement to the model: hidden from model use.
      modelUseAllowed: !isCredential && !(input.origin === 'import' && finding !== undefined),
      validFrom,
      validTo,
      scheduled: validFrom > now,
      mayReplace: input.origin !== 'import',
      mayFold: input.origin !== 'import' && input.origin !== 'page',
      // A person who edits a value on the page means exactly the value typed, not the nearest one already stored.
      exactOnly: input.exactOnly === true || input.origin === 'page',
      origin: input.origin,
      anchor: input.anchor ?? null,
      quote,
      ...indexEntriesOf({ subject, property, value, qualifiers, sensitivity: finding?.sensitivity ?? null }),
      cues,
      cueTerms: cueTermsOf(cues, finding?.sensitivity ?? null),
    },
  }
}

/**
 * The cue index's terms for a fact: its cues' search terms; none for a credential, which is never findable.
 * @param cues - the fact's cues.
 * @param sensitivity - its sensitivity.
 * @returns the indexable text, '' for none.
 */
export function cueTermsOf(cues: readonly string[], sensitivity: string | null): string {
  return sensitivity === 'credential' ? '' : indexText(cues)
}

/**
 * Cues as a fact keeps them: each tidied (whitespace folded), empty ones and repeats (case and width folded) left
 * out, the first {@link MAX_CUES} kept in the order given.
 * @param cues - cues as given, if any.
 * @returns the kept cues.
 */
export function tidyCues(cues: readonly string[] | undefined): string[] {
  return mergeCues([], cues ?? [])
}

/**
 * A fact's cues with more added: those it has first, then the new ones it lacks, up to {@link MAX_CUES}.
 * @param kept - the fact's cues.
 * @param added - cues a later write brought.
 * @returns the merged cues.
 */
export function mergeCues(kept: readonly string[], added: readonly string[]): string[] {
  const out: string[] = []
  const seen = new Set<string>()
  for (const cue of [...kept, ...added]) {
    const tidied = tidy(cue)
    const key = canonicalValue(tidied)
    if (tidied === '' || seen.has(key) || out.length >= MAX_CUES) continue
    seen.add(key)
    out.push(tidied)
  }
  return out
}

/**
 * The scope a write is stored under: its project's scope text, a project scope text as given (a path is kept byte
 * for byte), a tidied free-text label, or `global` when none is given.
 */
function scopeOf(input: FactInput): { scope: string; project: ProjectRef | null } {
  if (input.project !== undefined) return { scope: projectScope(input.project), project: input.project }
  const key = input.scope === undefined ? null : projectKeyOfScope(input.scope)
  if (key !== null) return { scope: projectScope(key), project: { key, name: projectNameOf(key) } }
  return { scope: storedLabel(input.scope), project: null }
}

/**
 * The scope text a write stores for a free-text scope: the label tidied (whitespace folded), `global` when empty.
 * @param label - the scope as given, if any.
 * @returns the stored scope text.
 */
export function storedLabel(label: string | undefined): string {
  const tidied = label === undefined ? '' : tidy(label)
  return tidied === '' ? GLOBAL_SCOPE : tidied
}

function tidy(text: string): string {
  return text.normalize('NFC').replace(/\s+/gu, ' ').trim()
}

function tidyQualifiers(qualifiers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(qualifiers ?? {})) {
    const k = tidy(key)
    const v = tidy(value)
    if (k !== '' && v !== '') out[k] = v
  }
  return out
}

function refuse(message: string): PrepareResult {
  return { ok: false, code: 'invalid_arguments', message }
}
