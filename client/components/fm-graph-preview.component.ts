/**
 * <fm-graph-preview>: the settings card's one-hop graph preview. The busiest subject of the nebula (the projection
 * the graph tab reads, which the graph verb keeps per generation) in the middle, at most eight of its neighbours
 * beside it with the properties that link them and "+N more" for the rest, drawn in SVG at one unit per CSS pixel so
 * its labels keep their sizes; every label sits on a chip of its own in the host's colours, legible in light and
 * dark. Clicking it closes Settings and opens the Fact memory page on the graph. An empty store (or one that cannot
 * be read) shows nothing.
 */
import { css, html, LitElement, nothing, svg } from 'lit'
import type { AppState } from '../app-state.ts'
import { callVerb } from '../api.ts'
import { glanceLabel } from '../format.ts'
import { openPageFromSettings } from '../open-from-settings.ts'
import { busiestSubject, previewLayout, previewPlan, type PreviewChip, type PreviewPlan } from '../graph-preview.ts'
import { baseStyles } from '../styles.ts'
import { ReloadOnChange } from './reload-on-change.ts'

/** The preview. */
export class FmGraphPreview extends LitElement {
  static override properties = { app: { attribute: false }, plan: { state: true }, width: { state: true } }

  static override styles = [
    baseStyles,
    css`
    :host { display: block; }
    h4 { margin: 16px 0 8px; font-size: 13px; line-height: 18px; color: var(--dsw-alias-label-secondary); }
    h4 .hint { font-weight: 400; }
    button.preview { display: block; width: 100%; padding: 0; border-radius: 10px; border-color: var(--dsw-alias-border-l1); overflow: hidden; }
    svg { display: block; max-width: 100%; height: auto; margin: 0 auto; }
    .link { fill: none; stroke: var(--dsw-alias-border-l3); stroke-width: 1.5; }
    .arrow { fill: var(--dsw-alias-border-l3); }
    .chip rect { fill: var(--dsw-alias-bg-layer-1, var(--dsw-alias-bg-base)); stroke: var(--dsw-alias-border-l2); }
    .chip.entity rect { stroke: var(--dsw-alias-label-tertiary); }
    .chip .label { fill: var(--dsw-alias-label-primary); font-size: 13px; }
    .chip .caption, .more text { fill: var(--dsw-alias-label-secondary); font-size: 11px; }
    .center rect { fill: var(--dsw-alias-brand-primary); }
    .center text { fill: var(--dsw-alias-label-primary-inverted); text-anchor: middle; }
    .center .label { font-size: 15px; font-weight: 600; }
    .center .caption { font-size: 11px; }
    .more rect { fill: var(--dsw-alias-bg-layer-1, var(--dsw-alias-bg-base)); stroke: var(--dsw-alias-border-l1); }
    .more text { font-size: 12px; text-anchor: middle; }
  `,
  ]

  declare app: AppState | undefined
  /** What to draw; undefined while nothing is known or the store is empty. */
  declare plan: PreviewPlan | undefined
  /** The drawing's width: the host element's, in CSS pixels. */
  declare width: number
  /** Counts loads, so a slow answer never replaces a newer one. */
  private loads = 0
  private readonly resize = new ResizeObserver((entries) => {
    const seen = Math.floor(entries[0]?.contentRect.width ?? 0)
    if (seen > 0 && seen !== this.width) this.width = seen
  })

  constructor() {
    super()
    new ReloadOnChange(this, () => {
      void this.load()
    })
    this.app = undefined
    this.plan = undefined
    this.width = 560
  }

  override connectedCallback(): void {
    super.connectedCallback()
    this.resize.observe(this)
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback()
    this.resize.disconnect()
  }

  /** Reads the nebula for its busiest subject, then that subject's one-hop tree. */
  private async load(): Promise<void> {
    this.loads += 1
    const load = this.loads
    const nebula = await callVerb('graph', { view: 'nebula' })
    const center = nebula.ok ? (busiestSubject(nebula.data)?.entityKey ?? undefined) : undefined
    const tree = center === undefined ? undefined : await callVerb('graph', { view: 'tree', center })
    if (load !== this.loads) return
    this.plan = tree?.ok === true ? previewPlan(tree.data) : undefined
    // Says that a read has settled, and how (for tests: an empty store draws nothing at all).
    this.dataset['state'] = this.plan === undefined ? 'empty' : 'shown'
  }

  override render(): unknown {
    const plan = this.plan
    if (plan === undefined) return nothing
    const layout = previewLayout(plan, this.width - 2)
    const name = plan.center.label
    return html`<h4>Busiest subject <span class="hint">· click to open the graph</span></h4>
      <button class="preview" data-fm="graph-preview" title="Open the Fact memory page on the graph"
        aria-label=${`Open the Fact memory page: ${name} and ${plan.shown.length + plan.more} neighbours`} @click=${() => {
          openPageFromSettings(this.app, this, 'graph')
        }}>
        <svg width=${layout.width} height=${layout.height} viewBox="0 0 ${layout.width} ${layout.height}" aria-hidden="true">
          <defs><marker id="fm-preview-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
            <path class="arrow" d="M0,0 L10,5 L0,10 z"></path></marker></defs>
          ${layout.chips.map(
            (chip) => svg`<path class="link" d=${chip.path}
            marker-end=${arrowEnd(chip, 'chip') ? 'url(#fm-preview-arrow)' : nothing}
            marker-start=${arrowEnd(chip, 'center') ? 'url(#fm-preview-arrow)' : nothing}></path>`,
          )}
          <g class="center" data-fm="preview-center">
            <rect x=${layout.center.x} y=${layout.center.y} width=${layout.center.width} height=${layout.center.height} rx="10"></rect>
            <text class="label" data-fm="preview-label" x=${layout.center.label.x} y=${layout.center.label.y}>${layout.center.label.text}</text>
            <text class="caption" data-fm="preview-label" x=${layout.center.caption.x} y=${layout.center.caption.y}>${layout.center.caption.text}</text>
            <title>${name}</title>
          </g>
          ${layout.chips.map(
            (chip) => svg`<g class="chip ${chip.neighbour.node.kind}" data-fm="preview-chip">
            <rect x=${chip.x} y=${chip.y} width=${chip.width} height=${chip.height} rx="8"></rect>
            <text class="caption" data-fm="preview-label" x=${chip.caption.x} y=${chip.caption.y}>${chip.caption.text}</text>
            <text class="label" data-fm="preview-label" x=${chip.label.x} y=${chip.label.y}>${chip.label.text}</text>
            <title>${chipTitle(name, chip)}</title>
          </g>`,
          )}
          ${
            layout.more === null
              ? nothing
              : svg`<g class="more" data-fm="preview-more">
            <rect x=${layout.more.box.x} y=${layout.more.box.y} width=${layout.more.box.width} height=${layout.more.box.height} rx="11"></rect>
            <text data-fm="preview-label" x=${layout.more.x} y=${layout.more.y}>${layout.more.text}</text>
          </g>`
          }
        </svg>
      </button>`
  }
}

/** Which end of a connector carries an arrowhead: the end a relation points at (subject → value). */
function arrowEnd(chip: PreviewChip, end: 'chip' | 'center'): boolean {
  return end === 'chip' ? chip.neighbour.outgoing : chip.neighbour.incoming
}

/** The chip's tooltip: the relations in full, subject first. */
function chipTitle(center: string, chip: PreviewChip): string {
  const { node, properties, outgoing } = chip.neighbour
  const relation = properties.join(', ')
  return outgoing ? `${center} · ${relation}: ${glanceLabel(node)}` : `${glanceLabel(node)} · ${relation}: ${center}`
}
