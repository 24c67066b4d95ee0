/**
 * The symbols the page draws, as SVG path data on a 16×16 grid filled in the text colour: fonts differ from machine to
 * machine (U+23F8 is in none of Debian's defaults), a path draws the same everywhere. Lit components and the host's
 * React slots render the same data.
 */

/** One icon: the paths of a 16×16 drawing, filled with currentColor (even-odd, so a ring's hole stays open). */
export interface IconShape {
  readonly paths: readonly string[]
}

/** Two bars. */
export const PAUSE_ICON: IconShape = { paths: ['M4 2.5h3v11H4z', 'M9 2.5h3v11H9z'] }

/** A triangle pointing right. */
export const RESUME_ICON: IconShape = { paths: ['M4.5 2.2 13.3 8l-8.8 5.8z'] }

/** A push pin, tilted. */
export const PIN_ICON: IconShape = {
  paths: [
    'M10.5 1.5l4 4-1.2 1.2-.9-.4-2.6 2.6.3 2.9-1.2 1.2-2.5-2.5-3.2 3.2H2.5v-.7l3.2-3.2L3.2 7.3l1.2-1.2 2.9.3 2.6-2.6-.4-.9z',
  ],
}

/** A ring with a bar across: the forget mark. */
export const FORGET_ICON: IconShape = {
  paths: [
    'M8 1.5a6.5 6.5 0 1 0 0 13 6.5 6.5 0 0 0 0-13zm0 1.6a4.9 4.9 0 0 1 3.9 7.86L5.04 4.1A4.88 4.88 0 0 1 8 3.1zM4.1 5.04l6.86 6.86A4.9 4.9 0 0 1 4.1 5.04z',
  ],
}

/** The view box every icon is drawn in. */
export const ICON_VIEW_BOX = '0 0 16 16'

/** A small chevron pointing down: the mark of a button that opens a menu. */
export const MENU_ICON: IconShape = { paths: ['M3.5 6 4.9 4.6 8 7.7l3.1-3.1L12.5 6 8 10.5z'] }
