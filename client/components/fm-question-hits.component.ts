/**
 * <fm-question-hits>: what memory_search finds for a query the library's filter matched nothing for (a question
 * such as "小明住在哪" holds words no fact holds). It asks the search verb, which runs the model's own retrieval,
 * once the query settles, and lists each slot's value as a button that opens the fact: with its qualifiers, a
 * sensitive value withheld behind its mark (format.ts, listedValue), and the old name the query named its subject by.
 */
import { css, html, LitElement, nothing, type PropertyValues } from 'lit'
import { callVerb, type VerbAnswer } from '../api.ts'
import { aliasMatchNote, listedValue, qualifierNote, sensitiveMark } from '../format.ts'
import { baseStyles } from '../styles.ts'

/** The answer's hits, reduced to what a row shows. */
interface Hit {
  readonly id: number
  readonly subject: string
  readonly property: string
  readonly qualifiers: Readonly<Record<string, string>>
  readonly value: string
  readonly status: string
  readonly sensitivity: string | null
  readonly matchedAlias: string | null
}

/** The memory_search fallback under an empty filter. */
export class FmQuestionHits extends LitElement {
  static override properties = { query: { attribute: false }, open: { attribute: false }, hits: { state: true } }

  static override styles = [
    baseStyles,
    css`
    :host { display: block; padding: 0 12px 12px; }
    ul { list-style: none; margin: 6px 0 0; padding: 0; }
    li button { width: 100%; text-align: left; border: 0; border-bottom: 1px solid var(--dsw-alias-border-l1); border-radius: 0; padding: 8px 0; }
    .value { font-weight: 600; }
  `,
  ]

  /** The query as the filter ran it. */
  declare query: string
  /** Open one fact in the library's detail. */
  declare open: ((id: number) => void) | undefined
  /** undefined while the search runs, then the hits (maybe none). */
  declare hits: readonly Hit[] | undefined
  private abort: AbortController | undefined

  constructor() {
    super()
    this.query = ''
    this.open = undefined
    this.hits = undefined
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback()
    this.abort?.abort()
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('query')) void this.search()
  }

  private async search(): Promise<void> {
    this.abort?.abort()
    const abort = new AbortController()
    this.abort = abort
    this.hits = undefined
    const query = this.query.trim()
    if (query === '') return
    try {
      const answer = await callVerb('search', { query }, abort.signal)
      if (abort.signal.aborted) return
      this.hits = answer.ok ? toHits(answer.data) : []
    } catch {
      // Aborted by a newer query; that search owns the list now.
    }
  }

  override render(): unknown {
    if (this.hits === undefined) return html`<p class="caption">Asking memory_search…</p>`
    if (this.hits.length === 0)
      return html`<p class="caption" data-fm="question-none">memory_search finds nothing for it either.</p>`
    return html`<section data-fm="question-hits" aria-label="What memory_search finds">
      <p class="caption">As a question, memory_search (what the assistant would find) answers:</p>
      <ul>${this.hits.map(
        (hit) => html`<li><button @click=${() => this.open?.(hit.id)}>
        ${hit.subject} · ${hit.property}${qualifierNote(hit.qualifiers) === '' ? nothing : html`<span class="caption" data-fm="hit-qualifiers">${qualifierNote(hit.qualifiers)}</span>`}:
        <span class="value">${listedValue(hit)}</span>
        ${sensitiveMark(hit) === '' ? nothing : html`<span class="pill sensitive" data-fm="hit-sensitive">${sensitiveMark(hit)}</span>`}
        ${hit.status === 'conflict' ? html`<span class="pill conflict">contested</span>` : nothing}
        ${hit.matchedAlias === null ? nothing : html`<span class="caption" data-fm="hit-alias">${aliasMatchNote(hit.matchedAlias)}</span>`}</button></li>`,
      )}</ul>
    </section>`
  }
}

/** Each slot's first matched value (its current one), in the answer's order. */
function toHits(value: VerbAnswer<'search'>): Hit[] {
  return value.results.flatMap((result) => {
    const row = result.values.find((candidate) => candidate.matched) ?? result.values[0]
    return row === undefined
      ? []
      : [
          {
            id: row.id,
            subject: result.subject,
            property: result.property,
            qualifiers: result.qualifiers,
            value: row.value,
            status: row.status,
            sensitivity: row.sensitivity,
            matchedAlias: result.matchedAlias,
          },
        ]
  })
}
