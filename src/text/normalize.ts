/** Pure text normalization: canonical subjects, predicates, values and qualifiers, and the claim/slot keys. */
import { createHash } from 'node:crypto'

/**
 * Trailing role words dropped from a subject so "X plugin" and "X" are one entity. Kept short on purpose: generic
 * words such as "server" or "tool" change what a name means ("mail server" is not "mail").
 */
const ROLE_WORDS = new Set(['plugin', 'project', 'service', 'repo', 'repository', 'library', 'package', 'extension'])

/** CJK role suffixes, dropped only when at least two characters of name remain ("微服务" keeps its suffix). */
const CJK_ROLE_SUFFIXES = ['插件', '项目', '服务', '仓库', '扩展']

/** Characters folded into one separator inside names. */
const SEPARATORS = /[\s_\-.·・,:;|]+/gu

/**
 * Unicode-normalize text for comparison: NFKC, lower case, whitespace collapsed, trimmed.
 * @param text - any text.
 * @returns the folded text.
 */
export function foldText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim()
}

/**
 * Canonical key of a subject: case and separators folded and a trailing role word dropped, so
 * "DSH Fact Memory", "dsh-fact-memory" and "dsh_fact_memory plugin" name one entity.
 * @param subject - the subject as written.
 * @returns the entity key (never empty for a non-empty subject).
 */
export function canonicalEntity(subject: string): string {
  const words = splitName(subject)
  const isRole = (word: string | undefined): boolean =>
    word !== undefined && (ROLE_WORDS.has(word) || CJK_ROLE_SUFFIXES.includes(word))
  while (words.length > 1 && isRole(words[words.length - 1])) words.pop()
  const last = words[words.length - 1]
  if (last !== undefined) {
    const suffix = CJK_ROLE_SUFFIXES.find((role) => last.endsWith(role) && last.length - role.length >= 2)
    if (suffix !== undefined) words[words.length - 1] = last.slice(0, -suffix.length)
  }
  return words.join(' ')
}

/**
 * Canonical key of a property: case and separators folded ("Preferred_Editor" = "preferred editor").
 * @param property - the property as written.
 * @returns the predicate key.
 */
export function canonicalPredicate(property: string): string {
  return splitName(property).join(' ')
}

/**
 * Canonical form of a value for claim identity: NFKC, case folded, whitespace collapsed.
 * @param value - the value as written.
 * @returns the folded value.
 */
export function canonicalValue(value: string): string {
  return foldText(value)
}

/**
 * Canonical qualifier set: keys and values folded, empty pairs dropped, keys sorted.
 * @param qualifiers - qualifier pairs as written.
 * @returns a stable JSON text of the sorted pairs (`{}` when none).
 */
export function canonicalQualifiers(qualifiers: Readonly<Record<string, string>> | undefined): string {
  if (qualifiers === undefined) return '{}'
  const pairs = Object.entries(qualifiers)
    .map(([key, value]) => [canonicalPredicate(key), foldText(value)] as const)
    .filter(([key, value]) => key !== '' && value !== '')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return JSON.stringify(Object.fromEntries(pairs))
}

/**
 * The slot a value lives in: one entity, one predicate, one qualifier set, and for a project-scoped fact its project
 * (so one property of one subject is a slot per project). Without a project the key is what it always was.
 * @param projectKey - the project key of a project-scoped fact; null otherwise.
 * @returns a hex SHA-256.
 */
export function slotKeyOf(
  entityKey: string,
  predicateKey: string,
  qualifierKey: string,
  projectKey: string | null = null,
): string {
  return sha256(JSON.stringify(withProject(['slot', entityKey, predicateKey, qualifierKey], projectKey)))
}

/**
 * The claim key: SHA-256 over the normalized entity, predicate, qualifier set and value, and the project of a
 * project-scoped fact (the same claim is one row per project; its tombstone leaves the project out, see
 * {@link tombstoneKeysOf}).
 * @param projectKey - the project key of a project-scoped fact; null otherwise.
 * @returns a hex SHA-256.
 */
export function claimKeyOf(
  entityKey: string,
  predicateKey: string,
  qualifierKey: string,
  valueKey: string,
  projectKey: string | null = null,
): string {
  return sha256(JSON.stringify(withProject(['claim', entityKey, predicateKey, qualifierKey, valueKey], projectKey)))
}

/**
 * The evidence key a forget tombstones beside the claim: the folded quote when there is one (with the project of a
 * project-scoped fact), else the claim itself.
 * @param quote - the supporting quote, if any.
 * @param claimKey - the claim key.
 * @param projectKey - the project key of a project-scoped fact; null otherwise.
 * @returns a hex SHA-256.
 */
export function evidenceKeyOf(
  quote: string | null | undefined,
  claimKey: string,
  projectKey: string | null = null,
): string {
  const folded = quote === null || quote === undefined ? '' : foldText(quote)
  return sha256(
    JSON.stringify(folded === '' ? ['evidence-claim', claimKey] : withProject(['evidence-quote', folded], projectKey)),
  )
}

/** The keys a forget tombstones and every write checks (see {@link tombstoneKeysOf}). */
export interface TombstoneKeys {
  readonly claim: string
  readonly evidence: string
}

/**
 * The tombstone keys of a claim: its claim and evidence keys as a fact outside any project has them. The project is
 * left out on purpose, so a claim forgotten in one scope (global, a label, a project) is refused in every other;
 * the keys a row is stored under keep it (one claim is one row per project). A global or labelled fact's tombstone
 * keys are its own claim and evidence keys.
 * @param quote - the supporting quote, if any.
 * @returns a hex SHA-256 for the claim and one for the evidence.
 */
export function tombstoneKeysOf(
  entityKey: string,
  predicateKey: string,
  qualifierKey: string,
  valueKey: string,
  quote: string | null | undefined,
): TombstoneKeys {
  const claim = claimKeyOf(entityKey, predicateKey, qualifierKey, valueKey)
  return { claim, evidence: evidenceKeyOf(quote, claim) }
}

/** A key's parts, with the project appended when there is one (a key without it is unchanged). */
function withProject(parts: readonly string[], projectKey: string | null): readonly unknown[] {
  return projectKey === null ? parts : [...parts, { project: projectKey }]
}

/**
 * Hex SHA-256 of UTF-8 text.
 * @param text - input text.
 * @returns 64 hex characters.
 */
export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

function splitName(name: string): string[] {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(SEPARATORS, ' ')
    .trim()
    .split(' ')
    .filter((word) => word !== '')
}
