/**
 * The WCAG contrast of text against what it is drawn on, in the browser, from computed styles: an SVG label's `fill`
 * over the `fill` of the shape (a rect) it shares a group with, or an HTML element's `color`; either laid over the
 * backgrounds of its ancestors (across shadow roots) while they are translucent, up to an opaque one (white if none).
 */
import type { Locator } from 'playwright-core'

/** Browser code, kept as text (the tests compile without the DOM's types): colours, layering and the ratio. */
const CONTRAST_KIT = `
  const context = document.createElement('canvas').getContext('2d', { willReadFrequently: true })
  // getImageData answers straight (not premultiplied) channels; alpha says how much of the pixel the colour covers.
  const rgba = (color, opacity = 1) => {
    context.clearRect(0, 0, 1, 1)
    context.fillStyle = color
    context.fillRect(0, 0, 1, 1)
    const [r, g, b, a] = context.getImageData(0, 0, 1, 1).data
    return [r, g, b, (a / 255) * opacity]
  }
  const over = (top, back) => [0, 1, 2].map((i) => top[i] * top[3] + back[i] * (1 - top[3]))
  // The backgrounds from node outwards, until one is opaque, composed into one colour.
  const backdrop = (node, layers) => {
    while (node && (layers.length === 0 || layers[layers.length - 1][3] < 1)) {
      const layer = rgba(getComputedStyle(node).backgroundColor)
      if (layer[3] > 0) layers.push(layer)
      node = node.parentElement ?? node.getRootNode().host ?? null
    }
    return layers.reverse().reduce((under, layer) => over(layer, under), [255, 255, 255])
  }
  const luminance = (rgb) => {
    const [r, g, b] = rgb.map((channel) => {
      const c = channel / 255
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * r + 0.7152 * g + 0.0722 * b
  }
  const ratio = (front, back) => {
    const [light, dark] = [luminance(front), luminance(back)].sort((a, b) => b - a)
    return (light + 0.05) / (dark + 0.05)
  }
`

const SVG_CONTRAST_OF = `(text) => {${CONTRAST_KIT}
  const paint = (element) => {
    const style = getComputedStyle(element)
    return rgba(style.fill, Number(style.fillOpacity) * Number(style.opacity))
  }
  const shape = text.parentElement?.querySelector(':scope > rect')
  const back = backdrop(text.closest('svg'), shape ? [paint(shape)] : [])
  return ratio(over(paint(text), back), back)
}`

const TEXT_CONTRAST_OF = `(element) => {${CONTRAST_KIT}
  const back = backdrop(element, [])
  return ratio(over(rgba(getComputedStyle(element).color), back), back)
}`

/**
 * The text and contrast ratio of every SVG <text> a locator matches, each against its chip, measured in one trip to
 * the browser.
 * @param texts - the text elements.
 * @returns each one's text and ratio, in document order.
 */
export async function svgLabelContrasts(texts: Locator): Promise<{ text: string; ratio: number }[]> {
  const measure = new Function(
    'texts',
    `const of = ${SVG_CONTRAST_OF}; return texts.map((text) => ({ text: text.textContent ?? '', ratio: of(text) }))`,
  ) as (texts: unknown[]) => { text: string; ratio: number }[]
  return texts.evaluateAll(measure)
}

/**
 * The contrast ratio of an HTML element's text (a label, a button) against the backgrounds it sits on.
 * @param element - the element whose `color` is read.
 * @returns the ratio, 1 to 21.
 */
export async function textContrast(element: Locator): Promise<number> {
  const measure = new Function('element', `return (${TEXT_CONTRAST_OF})(element)`) as (element: unknown) => number
  return element.evaluate(measure)
}

/** Browser code: every visible HTML element under a root (across shadow roots) that holds text of its own. */
const LOW_CONTRAST_UNDER = `([root, least]) => {${CONTRAST_KIT}
  const found = []
  const visit = (node) => {
    for (const child of [...(node.shadowRoot?.children ?? []), ...node.children]) visit(child)
    if (node instanceof SVGElement) return
    const own = [...node.childNodes].filter((child) => child.nodeType === 3).map((child) => child.textContent.trim()).join(' ').trim()
    const field = node instanceof HTMLInputElement || node instanceof HTMLSelectElement || node instanceof HTMLTextAreaElement
    const text = field ? (node.value || node.placeholder || '') : own
    if (text === '') return
    const box = node.getBoundingClientRect()
    const style = getComputedStyle(node)
    if (box.width === 0 || box.height === 0 || style.visibility === 'hidden' || Number(style.opacity) === 0) return
    if (node.closest?.('[inert]') || node.matches?.(':disabled')) return
    const back = backdrop(node, [])
    const value = ratio(over(rgba(style.color), back), back)
    if (value < least) found.push({ text: text.slice(0, 60), tag: node.tagName.toLowerCase(), ratio: Math.round(value * 100) / 100 })
  }
  visit(root)
  return found
}`

/** A text under the root that reads below the wanted contrast. */
export interface LowContrast {
  readonly text: string
  readonly tag: string
  readonly ratio: number
}

/**
 * Every visible text and form control under an element (across shadow roots) whose text reads below a contrast ratio
 * against the backgrounds it sits on; disabled controls are exempt, as WCAG exempts them.
 * @param root - the element to walk.
 * @param least - the ratio wanted, 4.5 by default.
 * @returns the texts below it.
 */
export async function lowContrastUnder(root: Locator, least = 4.5): Promise<LowContrast[]> {
  const walk = new Function('root', 'least', `return (${LOW_CONTRAST_UNDER})([root, least])`) as (
    root: unknown,
    least: number,
  ) => LowContrast[]
  return root.evaluate(walk, least)
}
