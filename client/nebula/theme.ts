/**
 * The nebula's colours, read from the host's `--dsw-alias-*` design tokens: the scene palette (with cluster hues
 * derived from the business accent) and the overlay's text colours. Missing tokens fall back to the host's own values.
 */
import { Color, MathUtils } from 'three'
import type { NebulaPalette } from './scene-looks.ts'

/** The colours the view uses: the scene's palette plus the overlay's text colours. */
export interface NebulaTheme {
  readonly palette: NebulaPalette
  readonly text: string
  readonly textSecondary: string
  readonly warnText: string
}

type ColourRole = 'background' | 'text' | 'textSecondary' | 'star' | 'contested' | 'warnText' | 'business' | 'success'

const TOKENS: Readonly<Record<ColourRole, string>> = {
  background: '--dsw-alias-bg-base',
  text: '--dsw-alias-label-primary',
  textSecondary: '--dsw-alias-label-secondary',
  star: '--dsw-alias-label-tertiary',
  contested: '--dsw-alias-state-warn-primary',
  warnText: '--dsw-alias-state-warn-label',
  business: '--dsw-alias-state-business-primary',
  success: '--dsw-alias-state-success-primary',
}

/** Used only when a token is missing or unparsable: the host's own values in 0.1.0-rc.8. */
const FALLBACK: Readonly<Record<'light' | 'dark', Readonly<Record<ColourRole, string>>>> = {
  light: { background: '#ffffff', text: '#0f1115', textSecondary: '#61666b', star: '#81858c', contested: '#f59e0b', warnText: '#dd8629', business: '#4176e6', success: '#22c55e' },
  dark: { background: '#151517', text: '#f9fafb', textSecondary: '#cfd3d6', star: '#adb2b8', contested: '#f59e0b', warnText: '#dd8629', business: '#679efe', success: '#22c55e' },
}

/** Hue turns (degrees) from the business accent for clusters 3 and up, chosen to stay clear of warn and error hues. */
const DERIVED_HUES: readonly number[] = [55, -35, 90, -125, 30, -55]
/** Resolves one token to a colour three.js parses: hex and rgb()/hsl() directly, anything else through a canvas. */
function resolveColour(raw: string, fallback: string, probe: () => CanvasRenderingContext2D | null): string {
  const value = raw.trim()
  if (value === '' || !CSS.supports('color', value)) return fallback
  if (/^(#[0-9a-f]{3}|#[0-9a-f]{6}|rgba?\(|hsla?\()/i.test(value)) return `#${new Color(value).getHexString()}`
  const context = probe()
  if (context === null) return fallback
  context.clearRect(0, 0, 1, 1)
  context.fillStyle = value
  context.fillRect(0, 0, 1, 1)
  const [r = 0, g = 0, b = 0] = context.getImageData(0, 0, 1, 1).data
  return `rgb(${r}, ${g}, ${b})`
}

/**
 * Reads the theme from the tokens inherited by `element`; missing tokens fall back by the body's dark flag.
 * @param element - where the tokens are read
 * @param probe - a 1×1 canvas context for colours only a browser can resolve (lazily made; null when unavailable)
 * @returns the palette and overlay text colours
 */
export function readTheme(element: Element, probe: () => CanvasRenderingContext2D | null): NebulaTheme {
  const dark = document.body.hasAttribute('data-ds-dark-theme') || matchMedia('(prefers-color-scheme: dark)').matches
  const style = getComputedStyle(element)
  const fallback = FALLBACK[dark ? 'dark' : 'light']
  const colour = (role: ColourRole): string => resolveColour(style.getPropertyValue(TOKENS[role]), fallback[role], probe)
  const business = new Color(colour('business'))
  const hsl = business.getHSL({ h: 0, s: 0, l: 0 }, 'srgb')
  const derived = DERIVED_HUES.map((turn) =>
    `#${new Color().setHSL(MathUtils.euclideanModulo(hsl.h + turn / 360, 1), Math.max(0.5, hsl.s), hsl.l, 'srgb').getHexString()}`)
  return {
    palette: {
      background: colour('background'),
      edge: colour('textSecondary'),
      star: colour('star'),
      contested: colour('contested'),
      clusters: [`#${business.getHexString()}`, colour('success'), ...derived],
    },
    text: colour('text'),
    textSecondary: colour('textSecondary'),
    warnText: colour('warnText'),
  }
}
