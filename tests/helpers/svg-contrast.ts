/**
 * The WCAG contrast of an SVG label against what it is drawn on, in the browser, from computed styles: the text's
 * `fill` over the `fill` of the shape (a rect) it shares a group with, that shape laid over the backgrounds of the
 * SVG's ancestors when it is translucent, up to an opaque one.
 */
import type { Locator } from 'playwright-core'

/** Browser code, kept as text (the tests compile without the DOM's types). */
const SVG_CONTRAST_OF = `(text) => {
  const context = document.createElement('canvas').getContext('2d', { willReadFrequently: true })
  // getImageData answers straight (not premultiplied) channels; alpha says how much of the pixel the colour covers.
  const rgba = (color, opacity = 1) => {
    context.clearRect(0, 0, 1, 1)
    context.fillStyle = color
    context.fillRect(0, 0, 1, 1)
    const [r, g, b, a] = context.getImageData(0, 0, 1, 1).data
    return [r, g, b, (a / 255) * opacity]
  }
  const paint = (element) => {
    const style = getComputedStyle(element)
    return rgba(style.fill, Number(style.fillOpacity) * Number(style.opacity))
  }
  const shape = text.parentElement?.querySelector(':scope > rect')
  const layers = shape ? [paint(shape)] : []
  let node = text.closest('svg')
  while (node && (layers.length === 0 || layers[layers.length - 1][3] < 1)) {
    const layer = rgba(getComputedStyle(node).backgroundColor)
    if (layer[3] > 0) layers.push(layer)
    node = node.parentElement ?? node.getRootNode().host ?? null
  }
  const over = (top, back) => [0, 1, 2].map((i) => top[i] * top[3] + back[i] * (1 - top[3]))
  const back = layers.reverse().reduce((under, layer) => over(layer, under), [255, 255, 255])
  const front = over(paint(text), back)
  const luminance = (rgb) => {
    const [r, g, b] = rgb.map((channel) => {
      const c = channel / 255
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * r + 0.7152 * g + 0.0722 * b
  }
  const [light, dark] = [luminance(front), luminance(back)].sort((a, b) => b - a)
  return (light + 0.05) / (dark + 0.05)
}`

/**
 * The contrast ratio of one SVG <text> against its chip.
 * @param text - the text element.
 * @returns the ratio, 1 to 21.
 */
export async function svgLabelContrast(text: Locator): Promise<number> {
  const measure = new Function('text', `return (${SVG_CONTRAST_OF})(text)`) as (text: unknown) => number
  return text.evaluate(measure)
}
