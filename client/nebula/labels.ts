/**
 * The nebula's HTML label overlay: one absolutely placed element per label, reused across frames. Labels are
 * placed in the order asked, skipping any that would overlap one already placed unless it is marked strong.
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
  /** Always shown, bold, even when it overlaps. */
  readonly strong: boolean
  /** In the warning colour (contested relations). */
  readonly warn: boolean
  /** Faded (a dimmed node). */
  readonly dim: boolean
}

const LABEL_CSS = 'position:absolute;left:0;top:0;white-space:nowrap;max-width:18em;overflow:hidden;text-overflow:ellipsis;'
  + 'padding:0 2px;text-shadow:0 0 3px var(--nebula-halo),0 0 2px var(--nebula-halo);will-change:transform'

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

  /** @param overlay - the element the labels are appended to */
  constructor(overlay: HTMLElement) {
    this.#overlay = overlay
  }

  /**
   * Shows the labels that fit and hides the rest.
   * @param wanted - labels in order of importance
   * @param camera - projects anchors to the screen
   * @param width - the overlay's width in pixels
   * @param height - the overlay's height in pixels
   */
  place(wanted: readonly WantedLabel[], camera: Camera, width: number, height: number): void {
    const placed: { x: number; y: number; w: number }[] = []
    const shown = new Set<string>()
    for (const label of wanted) {
      if (shown.has(label.key)) continue
      const ndc = label.at.clone().project(camera)
      if (ndc.z > 1 || ndc.z < -1) continue
      const x = ((ndc.x + 1) / 2) * width
      const y = ((1 - ndc.y) / 2) * height - label.lift
      if (x < 0 || x > width || y < 0 || y > height) continue
      const w = Math.min(label.text.length, 30) * 6.6 + 8
      const clash = placed.some((other) => Math.abs(other.x - x) < (other.w + w) / 2 && Math.abs(other.y - y) < 16)
      if (clash && !label.strong) continue
      placed.push({ x, y, w })
      shown.add(label.key)
      let element = this.#labels.get(label.key)
      if (element === undefined) {
        element = styled('div', LABEL_CSS)
        this.#labels.set(label.key, element)
        this.#overlay.append(element)
      }
      if (element.textContent !== label.text) element.textContent = label.text
      element.style.color = label.warn ? 'var(--nebula-warn)' : label.strong ? 'var(--nebula-text)' : 'var(--nebula-text-2)'
      element.style.fontWeight = label.strong ? '600' : ''
      element.style.opacity = label.dim ? '0.45' : ''
      element.style.transform = `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px) translate(-50%, -100%)`
      element.style.display = ''
    }
    for (const [key, element] of this.#labels) if (!shown.has(key)) element.style.display = 'none'
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
