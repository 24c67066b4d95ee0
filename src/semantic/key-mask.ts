/**
 * Pure: keep an endpoint key out of a text that is about to become a message. Every occurrence of the key, every
 * token that shares a run of eight characters with it (a truncated or wrapped echo), and whatever the privacy scan
 * takes for a credential are masked, so an endpoint that echoes the request's authorization header cannot make the
 * plugin repeat the key.
 */
import { MASK, maskCredentials } from '../text/privacy.ts'

/** How long a shared run must be before a token counts as an echo of the key. */
const FRAGMENT = 8
/** The characters a key and its echoes are made of. */
const TOKEN = /[A-Za-z0-9._~+/=:-]+/gu

/**
 * Mask the key and anything that looks like it.
 * @param text - any text (an error body, an exception's message).
 * @param apiKey - the key sent with the request, if any.
 * @returns the text with the key, its fragments and other credentials replaced by {@link MASK}.
 */
export function maskKey(text: string, apiKey: string | undefined): string {
  const key = apiKey ?? ''
  const masked = maskCredentials(text, key === '' ? [] : [key])
  if (key.length < FRAGMENT) return masked
  const fragments: string[] = []
  for (let start = 0; start + FRAGMENT <= key.length; start += 1) fragments.push(key.slice(start, start + FRAGMENT))
  return masked.replace(TOKEN, (token) => (fragments.some((fragment) => token.includes(fragment)) ? MASK : token))
}
