/** ConfirmationBook: short-lived, single-use tokens for two-step actions, bound to the store generation. */
import { randomBytes } from 'node:crypto'
import type { Clock } from '../clock.ts'
import type { ConfirmationBook } from '../management/verb.ts'

/** How long a confirmation stays valid. */
export const CONFIRMATION_TTL_MS = 2 * 60_000

/**
 * Create a book. Tokens live in memory only: a restart forgets them, which only means asking again.
 * @param clock - the clock expiry is measured with.
 * @returns the book.
 */
export function createConfirmationBook(clock: Clock): ConfirmationBook {
  const tokens = new Map<string, { purpose: string; generation: number; expires: number }>()
  const sweep = (): void => {
    const now = clock.now()
    for (const [token, entry] of tokens) if (entry.expires <= now) tokens.delete(token)
  }
  return {
    issue(purpose, generation) {
      sweep()
      const token = randomBytes(18).toString('base64url')
      const expires = clock.now() + CONFIRMATION_TTL_MS
      tokens.set(token, { purpose, generation, expires })
      return { token, expiresAt: new Date(expires).toISOString() }
    },
    consume(purpose, token, generation) {
      sweep()
      const entry = tokens.get(token)
      tokens.delete(token)
      return entry !== undefined && entry.purpose === purpose && entry.generation === generation
    },
  }
}
