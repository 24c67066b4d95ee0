/**
 * The nebula's HTML label overlay: one absolutely placed element per label, reused across frames. Labels are
 * placed in the order asked, each above its anchor, else below, right or left of it, and skipped when every one of
 * those would overlap a label already placed: drawn labels never overlap. Widths are measured with the overlay's
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
}

const LABEL_CSS = 'position:absolute;left:0;top:0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;box-sizing:border-box;'
  + 'height:16px;padding:0 2px;text-shadow:0 0 3px var(--nebula-halo),0 0 2px var(--nebula-halo);will-change:transform'
/** A label's height and its widest, in pixels; a gap kept free between two labels. */
const LABEL_HEIGHT = 16
const LABEL_MAX_WIDTH = 216
const LABEL_GAP = 2

/** A placed label's box, in overlay pixels. */
interface Box {
  readonly left: number
  readonly top: number
  readonly right: number
  readonly bottom: number
}

/**
 * @param tag - the element to create
 * @param css - its inline style
 * @param text - its text
 * @returns a new element
 */
export function styled<K extends keyof HTMLElementTagNameMap>(tag: K, css: string, text = ''): HTMLElementTagNameMap[K] {
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
   */
  place(wanted: readonly WantedLabel[], camera: Camera, width: number, height: number): void {
    const placed: Box[] = []
    const shown = new Set<string>()
    const family = getComputedStyle(this.#overlay).fontFamily || 'system-ui, sans-serif'
    for (const label of wanted) {
      if (shown.has(label.key)) continue
      const ndc = label.at.clone().project(camera)
      if (ndc.z > 1 || ndc.z < -1) continue
      const x = ((ndc.x + 1) / 2) * width
      const y = ((1 - ndc.y) / 2) * height
      if (x < 0 || x > width || y < 0 || y > height) continue
      const w = Math.min(LABEL_MAX_WIDTH, Math.ceil(this.#measure(label.text, label.strong, family)) + 6)
      const box = this.#spot(x, y, label.lift, w, width, height, placed)
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
      element.style.color = label.warn ? 'var(--nebula-warn)' : label.strong ? 'var(--nebula-text)' : 'var(--nebula-text-2)'
      element.style.fontWeight = label.strong ? '600' : ''
      element.style.opacity = label.dim ? '0.45' : ''
      element.style.transform = `translate(${box.left.toFixed(1)}px, ${box.top.toFixed(1)}px)`
      element.style.display = ''
    }
    for (const [key, element] of this.#labels) if (!shown.has(key)) element.style.display = 'none'
  }

  /** The first free spot for a label of width `w`: above the anchor, below, right, then left; none when all clash. */
  #spot(x: number, y: number, lift: number, w: number, width: number, height: number, placed: readonly Box[]): Box | undefined {
    const candidates: [number, number][] = [
      [x - w / 2, y - lift - LABEL_HEIGHT],
      [x - w / 2, y + lift],
      [x + lift + 2, y - LABEL_HEIGHT / 2],
      [x - lift - 2 - w, y - LABEL_HEIGHT / 2],
    ]
    for (const [left, top] of candidates) {
      const box = { left, top, right: left + w, bottom: top + LABEL_HEIGHT }
      if (box.left < 0 || box.top < 0 || box.right > width || box.bottom > height) continue
      const clash = placed.some((other) => box.left < other.right + LABEL_GAP && other.left < box.right + LABEL_GAP
        && box.top < other.bottom + LABEL_GAP && other.top < box.bottom + LABEL_GAP)
      if (!clash) return box
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
