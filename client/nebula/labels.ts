/**
 * The nebula's HTML label overlay: one absolutely placed element per label, reused across frames. Labels are
 * placed in the order asked, each above its anchor, else below, right or left of it, else at a corner, and skipped
 * when every one of those would overlap a label already placed or a star's disc: drawn labels never overlap each
 * other or a star. Widths are measured with the overlay's
 * own font.
 */
import type { Camera, Vector3 } from 'three'

/** One label the view would like to show. */
export interface WantedLabel {
  /** `n:<node id>` or `e:<edge id>`; the first label with a key wins. */
  readonly key: string
  readonly text: string
  /** Its anchor in world space. */
  readonly at: Vector3
  /** Pixels to lift it above the anchor (a node's radius on screen). */
  readonly lift: number
  /** Bold, in the primary text colour (the hovered or selected star, a hub). */
  readonly strong: boolean
  /** In the warning colour (contested relations). */
  readonly warn: boolean
  /** Faded (a dimmed node). */
  readonly dim: boolean
  /**
   * For an edge label: the edge's ends. The label then sits next to the edge, at a stop along it, or is not shown;
   * it never drifts away from its edge to find room.
   */
  readonly edge?: { readonly from: Vector3; readonly to: Vector3 }
}

const LABEL_CSS =
  'position:absolute;left:0;top:0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;box-sizing:border-box;' +
  'height:16px;padding:0 2px;text-shadow:0 0 3px var(--nebula-halo),0 0 2px var(--nebula-halo);will-change:transform'
/** A label's height and its widest, in pixels; a gap kept free between two labels. */
const LABEL_HEIGHT = 16
const LABEL_MAX_WIDTH = 216
const LABEL_GAP = 2
/** Extra pixels between a label and its anchor, ring by ring, when the nearer spots are taken. */
const RING_STEPS = [0, 8, 18, 30, 46, 66, 90]
/** An edge label's stops along its edge (from its source), and its rings: it stays next to the edge. */
const EDGE_STOPS = [0.5, 0.38, 0.62, 0.26, 0.74]
const EDGE_RING_STEPS = [2, 8]

/** A placed label's box, in overlay pixels. */
interface Box {
  readonly left: number
  readonly top: number
  readonly right: number
  readonly bottom: number
}

/** A star's disc on screen. */
export interface Disc {
  readonly x: number
  readonly y: number
  readonly r: number
}

/** Whether a label box overlaps a disc (a disc under a pixel is not in the way of text beside it). */
function coversDisc(box: Box, disc: Disc): boolean {
  const nearX = Math.max(box.left, Math.min(disc.x, box.right))
  const nearY = Math.max(box.top, Math.min(disc.y, box.bottom))
  const r = Math.max(0, disc.r - 0.5)
  return (disc.x - nearX) ** 2 + (disc.y - nearY) ** 2 < r * r
}

/**
 * @param tag - the element to create
 * @param css - its inline style
 * @param text - its text
 * @returns a new element
 */
export function styled<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  css: string,
  text = '',
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  element.style.cssText = css
  element.textContent = text
  return element
}

/** The label elements inside one overlay element. */
export class LabelOverlay {
  readonly #overlay: HTMLElement
  readonly #labels = new Map<string, HTMLElement>()
  readonly #widths = new Map<string, number>()
  #context: CanvasRenderingContext2D | null | undefined

  /** @param overlay - the element the labels are appended to */
  constructor(overlay: HTMLElement) {
    this.#overlay = overlay
  }

  /**
   * Shows the labels that fit, in the order given, and hides the rest.
   * @param wanted - labels in order of importance
   * @param camera - projects anchors to the screen
   * @param width - the overlay's width in pixels
   * @param height - the overlay's height in pixels
   * @param stars - star discs on screen (centre and radius in overlay pixels) no label may cover
   */
  place(
    wanted: readonly WantedLabel[],
    camera: Camera,
    width: number,
    height: number,
    stars: readonly Disc[] = [],
  ): void {
    const placed: Box[] = []
    const shown = new Set<string>()
    const family = getComputedStyle(this.#overlay).fontFamily || 'system-ui, sans-serif'
    const toScreen = (point: Vector3): [number, number] | undefined => {
      const ndc = point.clone().project(camera)
      if (ndc.z > 1 || ndc.z < -1) return undefined
      return [((ndc.x + 1) / 2) * width, ((1 - ndc.y) / 2) * height]
    }
    for (const label of wanted) {
      if (shown.has(label.key)) continue
      const anchor = toScreen(label.at)
      if (anchor === undefined) continue
      const [x, y] = anchor
      if (x < 0 || x > width || y < 0 || y > height) continue
      const w = Math.min(LABEL_MAX_WIDTH, Math.ceil(this.#measure(label.text, label.strong, family)) + 6)
      let box: Box | undefined
      if (label.edge === undefined) box = this.#spot(x, y, label.lift, w, width, height, placed, stars)
      else {
        const from = toScreen(label.edge.from)
        const to = toScreen(label.edge.to)
        if (from === undefined || to === undefined) continue
        for (const t of EDGE_STOPS) {
          box = this.#spot(
            from[0] + (to[0] - from[0]) * t,
            from[1] + (to[1] - from[1]) * t,
            0,
            w,
            width,
            height,
            placed,
            stars,
            EDGE_RING_STEPS,
          )
          if (box !== undefined) break
        }
      }
      if (box === undefined) continue
      placed.push(box)
      shown.add(label.key)
      let element = this.#labels.get(label.key)
      if (element === undefined) {
        element = styled('div', LABEL_CSS)
        this.#labels.set(label.key, element)
        this.#overlay.append(element)
      }
      if (element.textContent !== label.text) element.textContent = label.text
      element.dataset['label'] = label.key
      element.dataset['anchor'] = `${Math.round(x)},${Math.round(y)}`
      element.style.width = `${w}px`
      element.style.color = label.warn
        ? 'var(--nebula-warn)'
        : label.strong
          ? 'var(--nebula-text)'
          : 'var(--nebula-text-2)'
      element.style.fontWeight = label.strong ? '600' : ''
      element.style.opacity = label.dim ? '0.45' : ''
      element.style.transform = `translate(${box.left.toFixed(1)}px, ${box.top.toFixed(1)}px)`
      element.style.display = ''
    }
    for (const [key, element] of this.#labels) if (!shown.has(key)) element.style.display = 'none'
  }

  /**
   * The first free spot for a label of width `w`: above the anchor, below, right, left, then the four corners, each
   * ring a little farther out when the nearer one is taken; none when all clash with a placed label or a star.
   */
  #spot(
    x: number,
    y: number,
    lift: number,
    w: number,
    width: number,
    height: number,
    placed: readonly Box[],
    stars: readonly Disc[],
    rings: readonly number[] = RING_STEPS,
  ): Box | undefined {
    const candidates: [number, number][] = []
    for (const extra of rings) {
      const reach = lift + extra
      const corner = reach * 0.71 + 1
      candidates.push(
        [x - w / 2, y - reach - LABEL_HEIGHT],
        [x - w / 2, y + reach],
        [x + reach + 2, y - LABEL_HEIGHT / 2],
        [x - reach - 2 - w, y - LABEL_HEIGHT / 2],
        [x + corner, y - corner - LABEL_HEIGHT],
        [x - corner - w, y - corner - LABEL_HEIGHT],
        [x + corner, y + corner],
        [x - corner - w, y + corner],
      )
    }
    for (const [left, top] of candidates) {
      const box = { left, top, right: left + w, bottom: top + LABEL_HEIGHT }
      if (box.left < 0 || box.top < 0 || box.right > width || box.bottom > height) continue
      const clash = placed.some(
        (other) =>
          box.left < other.right + LABEL_GAP &&
          other.left < box.right + LABEL_GAP &&
          box.top < other.bottom + LABEL_GAP &&
          other.top < box.bottom + LABEL_GAP,
      )
      if (!clash && !stars.some((star) => coversDisc(box, star))) return box
    }
    return undefined
  }

  /** Text width in the overlay's 12px font, cached per text and weight. */
  #measure(text: string, strong: boolean, family: string): number {
    const key = `${strong ? 'b' : 'n'}${text}`
    let width = this.#widths.get(key)
    if (width === undefined) {
      this.#context ??= document.createElement('canvas').getContext('2d')
      if (this.#context === null) return text.length * 7.2
      this.#context.font = `${strong ? '600 ' : ''}12px ${family}`
      width = this.#context.measureText(text).width
      if (this.#widths.size > 5000) this.#widths.clear()
      this.#widths.set(key, width)
    }
    return width
  }

  /**
   * Removes the elements of labels whose node or edge is gone.
   * @param keep - whether a label key still has its node or edge
   */
  prune(keep: (key: string) => boolean): void {
    for (const [key, element] of this.#labels) {
      if (keep(key)) continue
      element.remove()
      this.#labels.delete(key)
    }
  }

  /** Forgets every element (the overlay itself is removed by the view). */
  dispose(): void {
    this.#labels.clear()
  }
}
