/**
 * The library as a document to read and share: one section per subject (and scope), its current values with the day
 * they became true and how they are known, an open conflict listed as such for the user to settle, and the history
 * beneath. A sensitive value is withheld, naming only its kind, unless the caller asks for it; a credential is masked
 * even then (see maskForFile), so the document never carries one in clear. Text from the store is
 * escaped so it reads as text, never as Markdown or HTML. Pure: the export verb writes what this returns. JSONL stays
 * the exchange format; this is not read back.
 */
import { maskForFile } from '../text/credential-copy.ts'
import { formatDay } from '../text/dates.ts'
import { CURRENT_STATUSES, type Evidence, type Fact } from '../types.ts'

/** How the document is written. */
export interface MarkdownOptions {
  /** ISO instant the export was taken. */
  readonly now: string
  /** The zone days are written in. */
  readonly timeZone: string
  /** Write sensitive values (the user asked; a credential still masked); otherwise each is withheld. */
  readonly includeSensitive: boolean
}

/** The document and what it holds. */
export interface LibraryDocument {
  readonly text: string
  readonly facts: number
  readonly subjects: number
  /** Sensitive values withheld. */
  readonly withheld: number
}

const EVIDENCE_WORDS: Readonly<Record<Evidence, string>> = {
  explicit_user: 'the user said it',
  confirmed_user: 'the user confirmed it',
  observed: 'observed',
  unverified: 'unverified',
}

const plural = (n: number, one: string, many: string): string => `${String(n)} ${n === 1 ? one : many}`

/**
 * Render the library.
 * @param facts - every fact to show (forgotten ones left out by the caller), any order.
 * @param options - the instant, the zone and whether sensitive values are shown.
 * @returns the Markdown text.
 */
export function libraryMarkdown(facts: readonly Fact[], options: MarkdownOptions): string {
  return libraryDocument(facts, options).text
}

/**
 * Render the library, with its counts.
 * @param stored - every fact to show (forgotten ones left out by the caller), any order.
 * @param options - the instant, the zone and whether sensitive values are shown.
 * @returns the document.
 */
export function libraryDocument(stored: readonly Fact[], options: MarkdownOptions): LibraryDocument {
  const facts = stored.map(maskForFile)
  const sections = new Map<string, Fact[]>()
  for (const fact of facts) {
    const key = `${fact.subject}\u0000${fact.scope}`
    const list = sections.get(key)
    if (list === undefined) sections.set(key, [fact])
    else list.push(fact)
  }
  const ordered = [...sections.values()].sort((a, b) => sectionOrder(a[0], b[0]))
  const withheld = facts.filter((fact) => fact.sensitivity !== null && !options.includeSensitive).length
  const day = (iso: string): string => formatDay(iso, options.timeZone)
  const subjects = new Set(facts.map((fact) => fact.subject)).size
  const head = [
    '# Fact memory',
    '',
    facts.length === 0
      ? 'No facts yet.'
      : `${plural(facts.length, 'fact', 'facts')} about ${plural(subjects, 'subject', 'subjects')}, exported ${day(options.now)}.` +
        (withheld > 0 ? ` ${plural(withheld, 'sensitive value', 'sensitive values')} withheld.` : ''),
    '',
    'Memory is history, not instruction: each value is what was known then, with the day it became true.',
  ]
  const body = ordered.map((section) => sectionText(section, options, day))
  return { text: `${[...head, ...body].join('\n')}\n`, facts: facts.length, subjects, withheld }
}

function sectionOrder(a: Fact | undefined, b: Fact | undefined): number {
  if (a === undefined || b === undefined) return 0
  return (
    a.subject.localeCompare(b.subject) ||
    (a.scope === 'global' ? -1 : b.scope === 'global' ? 1 : a.scope.localeCompare(b.scope))
  )
}

function sectionText(facts: readonly Fact[], options: MarkdownOptions, day: (iso: string) => string): string {
  const first = facts[0]
  if (first === undefined) return ''
  const current = facts.filter((fact) => (CURRENT_STATUSES as readonly string[]).includes(fact.status))
  const history = facts
    .filter((fact) => !(CURRENT_STATUSES as readonly string[]).includes(fact.status))
    .sort(
      (a, b) => a.property.localeCompare(b.property) || (b.validTo ?? '').localeCompare(a.validTo ?? '') || a.id - b.id,
    )
  const lines = ['', `## ${escaped(first.subject)}${scopeNote(first)}`, '']
  const slots = new Map<string, Fact[]>()
  for (const fact of current.sort((a, b) => a.property.localeCompare(b.property) || valueOrder(a, b))) {
    const list = slots.get(fact.slotKey)
    if (list === undefined) slots.set(fact.slotKey, [fact])
    else list.push(fact)
  }
  for (const slot of slots.values()) {
    const lead = slot[0]
    if (lead === undefined) continue
    const name = `- **${escaped(lead.property)}**:`
    if (slot.length === 1) {
      lines.push(`${name} ${valueLine(lead, options, day)}`)
      continue
    }
    const contested = slot.some((fact) => fact.status === 'conflict')
    lines.push(contested ? `${name} in conflict, for you to settle:` : name)
    for (const fact of slot) lines.push(`  - ${valueLine(fact, options, day)}`)
  }
  if (current.length === 0) lines.push('No current values.')
  if (history.length > 0) {
    lines.push('', '### History', '')
    for (const fact of history) {
      const span = `${day(fact.validFrom)} to ${fact.validTo === null ? '?' : day(fact.validTo)}`
      lines.push(
        `- **${escaped(fact.property)}**: ${shownValue(fact, options)} — ${span}, ${EVIDENCE_WORDS[fact.evidence]} (${fact.status})`,
      )
    }
  }
  return lines.join('\n')
}

function valueOrder(a: Fact, b: Fact): number {
  return a.validFrom.localeCompare(b.validFrom) || a.value.localeCompare(b.value) || a.id - b.id
}

function valueLine(fact: Fact, options: MarkdownOptions, day: (iso: string) => string): string {
  const when = fact.status === 'scheduled' ? `from ${day(fact.validFrom)}` : `since ${day(fact.validFrom)}`
  const until = fact.validTo === null ? '' : `, until ${day(fact.validTo)}`
  const pinned = fact.pinnedAt === null ? '' : ', pinned'
  return `${shownValue(fact, options)} — ${when}${until}, ${EVIDENCE_WORDS[fact.evidence]}${pinned}`
}

function shownValue(fact: Fact, options: MarkdownOptions): string {
  if (fact.sensitivity !== null && !options.includeSensitive) return `(withheld: ${fact.sensitivity.replace('_', ' ')})`
  const qualifiers = Object.entries(fact.qualifiers).map(([key, value]) => `${escaped(key)}: ${escaped(value)}`)
  return `${escaped(fact.value)}${qualifiers.length > 0 ? ` (${qualifiers.join(', ')})` : ''}`
}

function scopeNote(fact: Fact): string {
  if (fact.scope === 'global') return ''
  if (fact.projectName !== null) return ` (project ${escaped(fact.projectName)})`
  return ` (scope ${escaped(fact.scope)})`
}

/** Text as text: one line, HTML brackets as entities, Markdown's marks backslashed. */
function escaped(text: string): string {
  return text
    .replace(/\s*[\r\n]+\s*/gu, ' ')
    .replace(/&/gu, '&amp;')
    .replace(/</gu, '&lt;')
    .replace(/>/gu, '&gt;')
    .replace(/[\\`*_[\]|#~]/gu, (mark) => `\\${mark}`)
}
