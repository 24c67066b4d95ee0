/** An icon of client/icons.ts as a Lit SVG template, sized by the component's CSS (`svg.icon`). */
import { html, svg } from 'lit'
import { ICON_VIEW_BOX, type IconShape } from '../icons.ts'

/**
 * Draw an icon in the text colour, hidden from assistive technology (the button carries the name).
 * @param shape - the icon.
 * @returns the template.
 */
export function icon(shape: IconShape): unknown {
  return html`<svg class="icon" viewBox=${ICON_VIEW_BOX} aria-hidden="true" fill="currentColor" fill-rule="evenodd">${shape.paths.map((d) => svg`<path d=${d}></path>`)}</svg>`
}
