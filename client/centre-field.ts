/**
 * The one-hop tree's centre field, DOM-free: what it shows and how a draft lives. A draft is what the user has typed
 * there and not yet committed (Enter, or leaving the field, which commits through its change) or put back (Escape);
 * while there is one, a read that lands (the default centre's, a refresh) never replaces it.
 */

/** What happens to the field: a keystroke, a commit (Enter or leaving it), or Escape. */
export type CentreFieldEvent =
  | { readonly kind: 'input'; readonly text: string }
  | { readonly kind: 'commit' }
  | { readonly kind: 'put-back' }

/**
 * The draft after an event: typing keeps what was typed; a commit or Escape ends it.
 * @param event - what happened.
 * @returns the draft, or undefined when the user is not editing.
 */
export function draftAfter(event: CentreFieldEvent): string | undefined {
  return event.kind === 'input' ? event.text : undefined
}

/** What the field is shown from. */
export interface CentreFieldState {
  /** What the user is typing, if anything. */
  readonly draft: string | undefined
  /** The label of the centre the drawn tree has, if one is drawn. */
  readonly drawn: string | undefined
  /** The subject last committed (typed, or a star clicked), if any. */
  readonly asked: string | undefined
  /** Whether the drawn tree is the one read for `asked` (false while its read is on its way). */
  readonly askedIsDrawn: boolean
}

/**
 * What the field shows: the draft while the user edits; else the subject asked for while its tree is on its way (so
 * the field never flicks back to the old centre after Enter); else the drawn centre's name; else the subject asked
 * for.
 * @param state - see CentreFieldState.
 * @returns the field's text.
 */
export function centreFieldText(state: CentreFieldState): string {
  if (state.draft !== undefined) return state.draft
  if (state.asked !== undefined && !state.askedIsDrawn) return state.asked
  return state.drawn ?? state.asked ?? ''
}
