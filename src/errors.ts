/** The closed vocabularies of results: tool outcomes and error codes shared by tools and routes. */

/** Every outcome a memory tool can report; the model reads the word verbatim. */
export type Outcome =
  | 'ok'
  | 'saved'
  | 'pending'
  | 'needs_selection'
  | 'not_found'
  | 'refused'
  | 'conflict'
  | 'unavailable'

/** The closed set of outcomes, in documentation order. */
export const OUTCOMES: readonly Outcome[] = [
  'ok',
  'saved',
  'pending',
  'needs_selection',
  'not_found',
  'refused',
  'conflict',
  'unavailable',
]

/** Machine codes of failures and refusals; one closed set shared by tools and routes. */
export type ErrorCode =
  // The request itself
  | 'invalid_arguments'
  | 'unknown_verb'
  | 'method_not_allowed'
  | 'forbidden'
  | 'unsupported_media_type'
  | 'payload_too_large'
  // The store's answer
  | 'not_found'
  | 'credential_refused'
  | 'tombstoned'
  | 'refused'
  | 'stale'
  | 'operation_collision'
  | 'slot_occupied'
  | 'confirm_required'
  | 'invalid_path'
  // The store's state
  /** A large import is being committed; the call changed nothing and may be tried again when it finishes. */
  | 'busy'
  | 'unavailable'
  | 'storage_unavailable'
  | 'store_from_newer_version'
  | 'foreign_database'
  | 'internal_error'

/** Every error code, for exhaustive checks. */
export const ERROR_CODES: readonly ErrorCode[] = [
  'invalid_arguments',
  'unknown_verb',
  'method_not_allowed',
  'forbidden',
  'unsupported_media_type',
  'payload_too_large',
  'not_found',
  'credential_refused',
  'tombstoned',
  'refused',
  'stale',
  'operation_collision',
  'slot_occupied',
  'confirm_required',
  'invalid_path',
  'busy',
  'unavailable',
  'storage_unavailable',
  'store_from_newer_version',
  'foreign_database',
  'internal_error',
]

/** A failure with a closed code; thrown only inside the store and caught at the tool and route shells. */
export class FactMemoryError extends Error {
  /** The closed machine code. */
  readonly code: ErrorCode

  /**
   * @param code - the closed machine code.
   * @param message - a sentence a person can act on.
   * @param options - the underlying cause, if any.
   */
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'FactMemoryError'
    this.code = code
  }
}

/**
 * Turn anything thrown into a code and a message that is safe to show: known errors keep their text, unknown
 * ones are reduced to `internal_error` so no stack or SQL reaches the model.
 * @param error - the caught value.
 * @returns the public code and message.
 */
export function toPublicError(error: unknown): { code: ErrorCode; message: string } {
  if (error instanceof FactMemoryError) return { code: error.code, message: error.message }
  return { code: 'internal_error', message: 'the fact store failed unexpectedly; nothing was changed' }
}

/**
 * The message of anything thrown, for logs and recorded failures (not for the model: see toPublicError).
 * @param error - the caught value.
 * @returns its message, or its text when it is not an Error.
 */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
