/**
 * The nebula's colours, read from the host's `--dsw-alias-*` design tokens: the scene palette (nine cluster hues:
 * the business accent, success, and seven fixed hues at the theme's lightness) and the overlay's text colours. Missing tokens fall back to the host's own values.
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
  light: {
    background: '#ffffff',
    text: '#0f1115',
    textSecondary: '#61666b',
    star: '#81858c',
    contested: '#f59e0b',
    warnText: '#dd8629',
    business: '#4176e6',
    success: '#22c55e',
  },
  dark: {
    background: '#151517',
    text: '#f9fafb',
    textSecondary: '#cfd3d6',
    star: '#adb2b8',
    contested: '#f59e0b',
    warnText: '#dd8629',
    business: '#679efe',
    success: '#22c55e',
  },
}

/**
 * Hues (degrees) and lightness shifts for clusters 3 to 9, after the business accent (blue) and success (green):
 * violet, pink, cyan, olive, then a darker indigo and teal and a lighter rose, so no two of the nine read alike.
 * Warn and error hues (0-50) are left out: amber marks contested edges. Lightness follows the theme (darker on a
 * light background, lighter on a dark one), so every hue keeps its contrast in both.
 */
const DERIVED: readonly (readonly [hue: number, shift: number])[] = [
  [270, 0],
  [322, 0],
  [188, 0],
  [72, 0],
  [245, -0.12],
  [165, -0.12],
  [345, 0.06],
]
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
  const colour = (role: ColourRole): string =>
    resolveColour(style.getPropertyValue(TOKENS[role]), fallback[role], probe)
  const business = new Color(colour('business'))
  const lightness = dark ? 0.66 : 0.47
  const derived = DERIVED.map(
    ([hue, shift]) =>
      `#${new Color().setHSL(MathUtils.euclideanModulo(hue / 360, 1), 0.62, lightness + shift, 'srgb').getHexString()}`,
  )
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
