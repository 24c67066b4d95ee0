/**
 * The one-hop tree's centre field, DOM-free: what it shows and how a draft lives. From entering the field until
 * leaving it, its text is the user's draft: no read that lands meanwhile (the default centre's, a refresh, the tree
 * asked for) writes into it, not even into an empty field before the first key, so typing (or typing over a
 * selection) never mixes with a centre's name. Enter asks for the centre and keeps the text; Escape puts the centre
 * back; leaving the field ends the draft (its change commits first).
 */

/** What happens to the field: entering it, a keystroke, Enter, Escape, or leaving it. */
export type CentreFieldEvent =
  | { readonly kind: 'focus'; readonly text: string }
  | { readonly kind: 'input'; readonly text: string }
  | { readonly kind: 'commit'; readonly text: string }
  | { readonly kind: 'put-back' }
  | { readonly kind: 'leave' }

/**
 * The draft after an event: the field's text from entering it, through keystrokes and Enter; the centre at Escape;
 * none once the user has left.
 * @param event - what happened; `text` is the field's text then.
 * @param centre - what the field shows without a draft (centreFieldText with `draft` undefined).
 * @returns the draft, or undefined when the user is not in the field.
 */
export function draftAfter(event: CentreFieldEvent, centre: string): string | undefined {
  switch (event.kind) {
    case 'focus':
    case 'input':
    case 'commit':
      return event.text
    case 'put-back':
      return centre
    case 'leave':
      return undefined
  }
}

/** What the field is shown from. */
export interface CentreFieldState {
  /** The field's text while the user is in it. */
  readonly draft: string | undefined
  /** The label of the centre the drawn tree has, if one is drawn. */
  readonly drawn: string | undefined
  /** The subject last committed (typed, or a star clicked), if any. */
  readonly asked: string | undefined
  /** Whether the drawn tree is the one read for `asked` (false while its read is on its way). */
  readonly askedIsDrawn: boolean
}

/**
 * What the field shows: the draft while the user is in it; else the subject asked for while its tree is on its way
 * (so the field never flicks back to the old centre after Enter); else the drawn centre's name; else the subject
 * asked for.
 * @param state - see CentreFieldState.
 * @returns the field's text.
 */
export function centreFieldText(state: CentreFieldState): string {
  if (state.draft !== undefined) return state.draft
  if (state.asked !== undefined && !state.askedIsDrawn) return state.asked
  return state.drawn ?? state.asked ?? ''
}
