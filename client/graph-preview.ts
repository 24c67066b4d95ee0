/**
 * The settings card's graph preview, without the DOM: which subject it centres on (the busiest of the nebula),
 * which of its one-hop neighbours it shows (at most a cap, "+N more" for the rest) and where everything sits on a
 * drawing of a given width, at one drawing unit per CSS pixel so the labels keep their stated sizes. Pure: the same
 * payloads and width always give the same picture.
 */
import type { GraphNode, GraphPayload } from '../src/graph-types.ts'
import { glanceLabel } from './format.ts'

/** How many neighbours the preview draws at most. */
export const PREVIEW_NEIGHBOURS = 8

/** One neighbour of the centre as the preview shows it. */
export interface PreviewNeighbour {
  readonly node: GraphNode
  /** The properties of the edges between it and the centre, in edge order, each once. */
  readonly properties: readonly string[]
  /** The centre's own facts name it (centre → neighbour). */
  readonly outgoing: boolean
  /** Its facts name the centre (neighbour → centre). */
  readonly incoming: boolean
  /** Facts behind its edges with the centre. */
  readonly facts: number
}

/** What the preview shows. */
export interface PreviewPlan {
  readonly center: GraphNode
  /** Facts about or naming the centre in the tree. */
  readonly centerFacts: number
  /** The neighbours drawn, strongest first. */
  readonly shown: readonly PreviewNeighbour[]
  /** Neighbours not drawn: past the cap, plus those the tree's own budget left out. */
  readonly more: number
}

/**
 * The busiest subject of a nebula: the entity with the most facts about or naming it, then the most edges, then the
 * first by label and id.
 * @param nebula - the nebula projection.
 * @returns its entity node, or undefined when the nebula has no entity.
 */
export function busiestSubject(nebula: GraphPayload): GraphNode | undefined {
  return nebula.nodes
    .filter((node) => node.kind === 'entity' && node.entityKey !== null)
    .sort(
      (a, b) => b.factCount - a.factCount || b.degree - a.degree || compare(a.label, b.label) || compare(a.id, b.id),
    )[0]
}

/**
 * The preview of a one-hop tree: its centre and its neighbours, ranked by the facts linking them to the centre,
 * subjects before plain values, then by their own facts, label and id; the first `cap` are shown.
 * @param tree - the tree projection around one subject.
 * @param cap - neighbours shown at most.
 * @returns the plan, or undefined for a tree without a centre.
 */
export function previewPlan(tree: GraphPayload, cap = PREVIEW_NEIGHBOURS): PreviewPlan | undefined {
  const center = tree.center
  if (center === null) return undefined
  const nodes = new Map(tree.nodes.map((node) => [node.id, node]))
  const found = new Map<
    string,
    { node: GraphNode; properties: string[]; outgoing: boolean; incoming: boolean; facts: number }
  >()
  for (const edge of tree.edges) {
    const outgoing = edge.source === center.id
    const other = outgoing ? edge.target : edge.source
    if (other === center.id || (!outgoing && edge.target !== center.id)) continue
    const node = nodes.get(other)
    if (node === undefined) continue
    const entry = found.get(other) ?? { node, properties: [], outgoing: false, incoming: false, facts: 0 }
    if (!entry.properties.includes(edge.label)) entry.properties.push(edge.label)
    if (outgoing) entry.outgoing = true
    else entry.incoming = true
    entry.facts += edge.factIds.length
    found.set(other, entry)
  }
  const ranked = [...found.values()].sort(
    (a, b) =>
      b.facts - a.facts ||
      Number(b.node.kind === 'entity') - Number(a.node.kind === 'entity') ||
      b.node.factCount - a.node.factCount ||
      compare(a.node.label, b.node.label) ||
      compare(a.node.id, b.node.id),
  )
  const shown = ranked.slice(0, Math.max(0, cap))
  return { center, centerFacts: center.factCount, shown, more: ranked.length - shown.length + tree.omitted.nodes }
}

/** A text line placed on the drawing: what it says (cut to fit, "…" at the end) and its left end or centre. */
export interface PlacedText {
  readonly text: string
  readonly x: number
  readonly y: number
}

/** A neighbour's chip: its box, its two lines, and the connector from the centre to it. */
export interface PreviewChip {
  readonly neighbour: PreviewNeighbour
  readonly side: 'left' | 'right'
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
  /** The properties (small, above). */
  readonly caption: PlacedText
  /** The neighbour's label. */
  readonly label: PlacedText
  /** SVG path data from the centre's side to the chip's near side. */
  readonly path: string
}

/** A box on the drawing. */
export interface Box {
  readonly x: number
  readonly y: number
  readonly width: number
  readonly height: number
}

/** Where everything goes. */
export interface PreviewLayout {
  readonly width: number
  readonly height: number
  readonly center: {
    readonly x: number
    readonly y: number
    readonly width: number
    readonly height: number
    readonly label: PlacedText
    readonly caption: PlacedText
  }
  readonly chips: readonly PreviewChip[]
  /** "+N more" under the drawing (x its centre, y its baseline) in its pill, or null when everything is shown. */
  readonly more: (PlacedText & { readonly box: Box }) | null
}

/** Sizes in CSS pixels, shared with the component's styles. */
export const PREVIEW_SIZES = {
  pad: 12,
  gutter: 44,
  chipHeight: 40,
  chipGap: 8,
  chipPadX: 10,
  chipMaxWidth: 230,
  chipMinWidth: 88,
  centerHeight: 52,
  centerPadX: 16,
  centerMinWidth: 110,
  centerMaxWidth: 210,
  moreHeight: 30,
  labelPx: 13,
  captionPx: 11,
  centerPx: 15,
  minWidth: 420,
} as const

/**
 * Lays the plan out: the centre in the middle, the neighbours in two columns beside it (those that name the centre
 * on the left first, so the left side reads into the centre; the columns balanced, the right one taking the odd
 * one), each column centred on the centre's height, its chips as wide as its widest label needs (within a cap) and
 * hugging the centre, and the whole picture centred.
 * @param plan - what to show.
 * @param width - the drawing's width in CSS pixels (at least {@link PREVIEW_SIZES}.minWidth is used).
 * @returns the drawing.
 */
export function previewLayout(plan: PreviewPlan, width: number): PreviewLayout {
  const s = PREVIEW_SIZES
  const drawingWidth = Math.max(s.minWidth, Math.floor(width))
  const leftCount = Math.floor(plan.shown.length / 2)
  const incoming = plan.shown.filter((entry) => entry.incoming && !entry.outgoing)
  const rest = plan.shown.filter((entry) => !(entry.incoming && !entry.outgoing))
  const leftSet = new Set([...incoming, ...rest].slice(0, leftCount))
  const left = plan.shown.filter((entry) => leftSet.has(entry))
  const right = plan.shown.filter((entry) => !leftSet.has(entry))
  const centerLabelRoom = s.centerMaxWidth - 2 * s.centerPadX
  const centerText = fitText(plan.center.label, centerLabelRoom, s.centerPx, true)
  const centerWidth = clamp(
    Math.ceil(textWidth(centerText, s.centerPx, true)) + 2 * s.centerPadX,
    s.centerMinWidth,
    s.centerMaxWidth,
  )
  const columnRoom = Math.min(s.chipMaxWidth, Math.floor((drawingWidth - 2 * s.pad - centerWidth - 2 * s.gutter) / 2))
  const chipText = (entry: PreviewNeighbour): { caption: string; label: string; width: number } => {
    const room = columnRoom - 2 * s.chipPadX
    const caption = fitText(entry.properties.join(', '), room, s.captionPx)
    const label = fitText(glanceLabel(entry.node), room, s.labelPx)
    const widest = Math.max(textWidth(caption, s.captionPx), textWidth(label, s.labelPx))
    return { caption, label, width: clamp(Math.ceil(widest) + 2 * s.chipPadX, s.chipMinWidth, columnRoom) }
  }
  const leftText = left.map(chipText)
  const rightText = right.map(chipText)
  const leftWidth = Math.max(0, ...leftText.map((text) => text.width))
  const rightWidth = Math.max(0, ...rightText.map((text) => text.width))
  const rows = Math.max(left.length, right.length)
  const columnHeight = rows === 0 ? 0 : rows * s.chipHeight + (rows - 1) * s.chipGap
  const bodyHeight = Math.max(s.centerHeight, columnHeight)
  const height = 2 * s.pad + bodyHeight + (plan.more > 0 ? s.moreHeight : 0)
  const total =
    (left.length > 0 ? leftWidth + s.gutter : 0) + centerWidth + (right.length > 0 ? s.gutter + rightWidth : 0)
  const x0 = Math.round((drawingWidth - total) / 2)
  const centerX = x0 + (left.length > 0 ? leftWidth + s.gutter : 0)
  const cy = s.pad + bodyHeight / 2
  const center = {
    x: centerX,
    y: Math.round(cy - s.centerHeight / 2),
    width: centerWidth,
    height: s.centerHeight,
    label: { text: centerText, x: centerX + centerWidth / 2, y: Math.round(cy - 3) },
    caption: {
      text: `${plan.centerFacts.toLocaleString('en-US')} ${plan.centerFacts === 1 ? 'fact' : 'facts'}`,
      x: centerX + centerWidth / 2,
      y: Math.round(cy + 15),
    },
  }
  const column = (
    entries: readonly PreviewNeighbour[],
    texts: readonly { caption: string; label: string }[],
    side: 'left' | 'right',
  ): PreviewChip[] => {
    const top = cy - (entries.length * s.chipHeight + Math.max(0, entries.length - 1) * s.chipGap) / 2
    const chipWidth = side === 'left' ? leftWidth : rightWidth
    return entries.map((neighbour, index) => {
      const text = texts[index] ?? { caption: '', label: '' }
      const y = Math.round(top + index * (s.chipHeight + s.chipGap))
      const x = side === 'left' ? centerX - s.gutter - chipWidth : centerX + centerWidth + s.gutter
      const from = side === 'left' ? centerX : centerX + centerWidth
      const to = side === 'left' ? x + chipWidth : x
      const mid = (from + to) / 2
      const toY = y + s.chipHeight / 2
      return {
        neighbour,
        side,
        x,
        y,
        width: chipWidth,
        height: s.chipHeight,
        caption: { text: text.caption, x: x + s.chipPadX, y: y + 15 },
        label: { text: text.label, x: x + s.chipPadX, y: y + 32 },
        path: `M${num(from)},${num(cy)} C${num(mid)},${num(cy)} ${num(mid)},${num(toY)} ${num(to)},${num(toY)}`,
      }
    })
  }
  const moreText = `+${plan.more.toLocaleString('en-US')} more`
  const moreWidth = Math.ceil(textWidth(moreText, s.captionPx + 1)) + 2 * s.chipPadX
  const moreTop = s.pad + bodyHeight + s.moreHeight - 22
  const more =
    plan.more === 0
      ? null
      : {
          text: moreText,
          x: drawingWidth / 2,
          y: moreTop + 15,
          box: { x: Math.round(drawingWidth / 2 - moreWidth / 2), y: moreTop, width: moreWidth, height: 22 },
        }
  return {
    width: drawingWidth,
    height,
    center,
    chips: [...column(left, leftText, 'left'), ...column(right, rightText, 'right')],
    more,
  }
}

/**
 * The width a line of text takes, estimated: a CJK or other wide character about one em, anything else about 0.6
 * em (0.64 in bold), on the generous side so an estimate never runs past its box.
 * @param text - the text.
 * @param px - the font size.
 * @param bold - bold type.
 * @returns the width in CSS pixels.
 */
export function textWidth(text: string, px: number, bold = false): number {
  let ems = 0
  for (const char of text) ems += wide(char) ? 1 : bold ? 0.64 : 0.6
  return ems * px
}

/**
 * Text cut to fit a width: whole when it fits, else as many characters as fit with "…" after them.
 * @param text - the text.
 * @param room - the width available.
 * @param px - the font size.
 * @param bold - bold type.
 * @returns the text to draw.
 */
export function fitText(text: string, room: number, px: number, bold = false): string {
  const flat = text.replace(/\s+/gu, ' ').trim()
  if (textWidth(flat, px, bold) <= room) return flat
  const chars = [...flat]
  let kept = chars.length
  while (kept > 0 && textWidth(`${chars.slice(0, kept).join('').trimEnd()}…`, px, bold) > room) kept -= 1
  return `${chars.slice(0, kept).join('').trimEnd()}…`
}

/** Wide characters: CJK ideographs, kana, hangul, fullwidth forms and emoji. */
function wide(char: string): boolean {
  return /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|\p{Extended_Pictographic}/u.test(
    char,
  )
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value))
}

/** A coordinate as path text: at most one decimal. */
function num(value: number): string {
  return String(Math.round(value * 10) / 10)
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
