/** Display helpers for the page: dates in the store's zone, relative ages, and labels for statuses and evidence. */

/** Status label with a shape prefix, so state never rests on colour alone. */
export const STATUS_LABEL: Readonly<Record<string, string>> = {
  active: '● current',
  scheduled: '◔ scheduled',
  conflict: '▲ contested',
  superseded: '○ superseded',
  retired: '✕ retired',
  expired: '◌ expired',
  forgotten: '⊘ forgotten',
}

/** Evidence in words. */
export const EVIDENCE_LABEL: Readonly<Record<string, string>> = {
  explicit_user: 'you said it',
  confirmed_user: 'you confirmed it',
  observed: 'observed',
  unverified: 'unverified',
}

/** Where a fact came from, in words. */
export const ORIGIN_LABEL: Readonly<Record<string, string>> = {
  tool: 'memory_write',
  import: 'import',
  rule: 'auto-capture',
  extract: 'extraction',
  proposal: 'accepted proposal',
  page: 'from the page',
}

/**
 * Since when a value is known to hold: the earlier of its start and its observation. An imported row's start is the
 * import's instant unless the file gave one, while the file keeps when the value was observed.
 * @param row - the row's start and observation (ISO instants).
 * @returns the earlier instant.
 */
export function observedSince(row: { readonly validFrom: string; readonly observedAt: string }): string {
  return row.observedAt < row.validFrom ? row.observedAt : row.validFrom
}

/**
 * How many times a folded line was seen, as the part of a caption that says so.
 * @param foldedCount - the row's fold count.
 * @returns ` · seen N times`, or `''` for a row that never folded.
 */
export function seenNote(foldedCount: number): string {
  return foldedCount > 0 ? ` · seen ${foldedCount + 1} times` : ''
}

/**
 * `2026-11-29 14:03` in a zone.
 * @param iso - ISO instant.
 * @param timeZone - the store's display zone (AppState.displayZone); empty only when the host never answered, and
 *   then the browser's zone is all there is.
 * @returns the local date and time.
 */
export function formatInstant(iso: string | null | undefined, timeZone: string): string {
  if (iso === null || iso === undefined) return '—'
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  const parts = zonedParts(date, timeZone)
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`
}

/**
 * When something last happened, as the digest says it: `14:03` earlier today, `yesterday`, a weekday within the
 * last week (`Tuesday`), else the date; days are counted in the zone.
 * @param iso - ISO instant, not after `now`.
 * @param timeZone - the store's display zone.
 * @param now - epoch ms.
 * @returns the words that follow "since".
 */
export function formatSince(iso: string, timeZone: string, now: number = Date.now()): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  const then = zonedParts(date, timeZone)
  const days = dayNumber(zonedParts(new Date(now), timeZone)) - dayNumber(then)
  if (days <= 0) return `${then.hour}:${then.minute}`
  if (days === 1) return 'yesterday'
  if (days < 7) return new Intl.DateTimeFormat('en-US', { weekday: 'long', ...zoneOption(timeZone) }).format(date)
  return `${then.year}-${then.month}-${then.day}`
}

interface ZonedParts {
  readonly year: string
  readonly month: string
  readonly day: string
  readonly hour: string
  readonly minute: string
}

function zonedParts(date: Date, timeZone: string): ZonedParts {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      ...zoneOption(timeZone),
    })
      .formatToParts(date)
      .map((part) => [part.type, part.value]),
  )
  return {
    year: parts['year'] ?? '',
    month: parts['month'] ?? '',
    day: parts['day'] ?? '',
    hour: parts['hour'] ?? '',
    minute: parts['minute'] ?? '',
  }
}

/** Days since the epoch of a calendar date, so two local dates subtract to whole days. */
function dayNumber(parts: ZonedParts): number {
  return Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day)) / 86_400_000
}

function zoneOption(timeZone: string): { timeZone?: string } {
  return timeZone === '' ? {} : { timeZone }
}

/**
 * "3 min ago", "2 days ago".
 * @param iso - ISO instant.
 * @param now - epoch ms.
 * @returns the age in words.
 */
export function formatAge(iso: string, now: number = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000))
  if (seconds < 60) return 'just now'
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.round(minutes / 60)
  if (hours < 48) return `${hours} h ago`
  return `${Math.round(hours / 24)} days ago`
}

/**
 * A count with its noun: "1 fact", "5 facts", "15,241 subjects".
 * @param count - how many.
 * @param noun - the singular.
 * @param plural - the plural, when it is not the singular and an s.
 * @returns the count in words.
 */
export function countOf(count: number, noun: string, plural = `${noun}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? noun : plural}`
}

/** Where a value came from: its origin, evidence, conversation and instant. */
export interface SourceLike {
  readonly origin: string
  readonly evidence: string
  readonly sessionId: string | null
  readonly turn: number | null
  readonly observedAt: string
}

/**
 * Where a value came from, in words: "you said it · memory_write in conversation 7f3a91c2, turn 3 · 2026-03-01 09:00";
 * a value the user put in on this page (Add fact, an edit, Put back) reads "you, from the page · 2026-03-01 09:00".
 * @param source - the fact or source.
 * @param timeZone - the store's display zone.
 * @returns one line.
 */
export function describeSource(source: SourceLike, timeZone: string): string {
  const when = formatInstant(source.observedAt, timeZone)
  if (source.origin === 'page' && source.evidence === 'explicit_user') return `you, from the page · ${when}`
  const conversation =
    source.sessionId === null
      ? ''
      : ` in conversation ${source.sessionId.length > 12 ? `${source.sessionId.slice(0, 12)}…` : source.sessionId}${source.turn === null ? '' : `, turn ${source.turn}`}`
  return `${EVIDENCE_LABEL[source.evidence] ?? source.evidence} · ${ORIGIN_LABEL[source.origin] ?? source.origin}${conversation} · ${when}`
}

/**
 * A slot in words, its qualifiers after it, so values that differ only by a qualifier never read as a contradiction:
 * `billing-api · port (env=staging)`.
 * @param slot - the subject, property and qualifiers.
 * @returns the words.
 */
export function slotWords(slot: {
  readonly subject: string
  readonly property: string
  readonly qualifiers?: Readonly<Record<string, string>>
}): string {
  return `${slot.subject} · ${slot.property}${qualifierNote(slot.qualifiers)}`
}

/**
 * A slot's qualifiers as the part of a line that names them: ` (env=staging, region=eu)`, or `''` for none.
 * @param qualifiers - the qualifiers, if any.
 * @returns the words.
 */
export function qualifierNote(qualifiers: Readonly<Record<string, string>> | undefined): string {
  const pairs = Object.entries(qualifiers ?? {})
  return pairs.length === 0 ? '' : ` (${pairs.map(([key, value]) => `${key}=${value}`).join(', ')})`
}

/**
 * The mark a sensitive fact carries wherever it is listed: `sensitive: phone`, or `''` for one that is not.
 * @param fact - its sensitivity (credential, email, phone, id_number) or null.
 * @returns the words.
 */
export function sensitiveMark(fact: { readonly sensitivity?: string | null }): string {
  return fact.sensitivity === undefined || fact.sensitivity === null
    ? ''
    : `sensitive: ${fact.sensitivity.replaceAll('_', ' ')}`
}

/**
 * THE RULE for a sensitive value on the page: what an export withholds, the page never shows where facts are listed.
 * The Markdown export withholds a sensitive value (email, phone, ID number) unless asked, and a credential always; so
 * in every list, hover, search hit, card and drawer that lists facts, a sensitive value reads `withheld` beside its
 * mark ({@link sensitiveMark}), and it is never the label of anything. Only the fact's own detail pane, opened on
 * purpose, shows it (a credential masked even there, as the routes always mask it). A value in a decision the user
 * must make on it (a conflict's sides, a proposal's rows, the confirmation of what a forget takes) is that decision's
 * subject, and is shown there.
 * @param fact - the value and its sensitivity (null or absent: not sensitive).
 * @returns the value to show in a list.
 */
export function listedValue(fact: { readonly value: string; readonly sensitivity?: string | null }): string {
  return fact.sensitivity === undefined || fact.sensitivity === null ? fact.value : WITHHELD
}

/** What a list shows in place of a sensitive value (see {@link listedValue}). */
export const WITHHELD = 'withheld'

/**
 * How a search named a subject when it was by an old name: `matched old name search-svc`, or `''`.
 * @param alias - the old name (an alias a rename or merge left), or null.
 * @returns the words.
 */
export function aliasMatchNote(alias: string | null | undefined): string {
  return alias === undefined || alias === null ? '' : `matched old name ${alias}`
}

/**
 * What a glance shows of a value: a graph star's label, its hover, a tree's node. It follows THE RULE above
 * ({@link listedValue}): a sensitive value (email, phone, ID number) is never a label, so a glance shows its kind
 * withheld, as the Markdown export does; a credential is never projected at all.
 * @param item - a label and, for a sensitive value, its sensitivity.
 * @returns the text to draw: `withheld: phone`, or the label.
 */
export function glanceLabel(item: {
  readonly label: string
  readonly sensitivity?: string | null | undefined
}): string {
  return item.sensitivity === undefined || item.sensitivity === null
    ? item.label
    : `withheld: ${item.sensitivity.replaceAll('_', ' ')}`
}

/**
 * A graph edge's words: its property and, when its facts carry them, their qualifiers, so two values of one slot
 * that differ only by a qualifier read apart: `port (env=staging)`.
 * @param edge - the edge's label (property) and qualifiers.
 * @returns the words.
 */
export function edgeWords(edge: {
  readonly label: string
  readonly qualifiers?: Readonly<Record<string, string>> | undefined
}): string {
  return `${edge.label}${qualifierNote(edge.qualifiers)}`
}
