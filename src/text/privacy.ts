/**
 * Pure privacy scan: does a fact carry a credential (refused, or stored masked) or personal data (stored, but
 * withheld from the model)? Patterns favour catching secrets over sparing odd-looking identifiers, except for
 * plain hex digests (commit ids, SHA-256 sums), which are identifiers, not secrets. The same patterns mask the
 * credentials inside free text, such as a fact's quote.
 */
import type { Sensitivity } from '../types.ts'
import { findPersonalData, isResidentId } from './personal-data.ts'

/** What stands in for a credential wherever one would be shown or kept. */
export const MASK = '••••••••'

/** What the scan found, with a short reason a person can read. */
export interface PrivacyFinding {
  readonly sensitivity: Sensitivity
  readonly reason: string
}

/**
 * What a credential looks like, with the reason the scan gives. A capture group, where there is one, is the part
 * that names the secret rather than being it (an assignment's key, a URL's scheme and user), kept when masking.
 */
const CREDENTIAL_PATTERNS: readonly (readonly [RegExp, string])[] = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----/u, 'a private key block'],
  [/\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{16,}/u, 'an API secret key (sk-…)'],
  [/\b(?:ghp|gho|ghs|ghu|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}/u, 'a GitHub token'],
  [/\bglpat-[A-Za-z0-9_-]{16,}/u, 'a GitLab token'],
  [/\bxox[abprse]-[A-Za-z0-9-]{10,}/u, 'a Slack token'],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/u, 'an AWS access key id'],
  [/\bAIza[0-9A-Za-z_-]{35}\b/u, 'a Google API key'],
  [/\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/u, 'a Stripe key'],
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/u, 'a JSON web token'],
  [/(\bbearer\s+)[A-Za-z0-9._~+/=-]{16,}/iu, 'a bearer token'],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s:/@]+(?=@)/iu, 'a URL with an embedded password'],
  [
    /((?:\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)|密码|口令|密钥)\s*[:=：]\s*)\S{4,}/iu,
    'a password or key assignment',
  ],
]

/** A whole private key block, from its header to its footer (or to the end of a text that was cut). */
const PRIVATE_KEY_BLOCK = /-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/gu
/** The words of a text, split as the scan splits a value. */
const WORD = /[^\s"'`,;]+/gu

/**
 * A secret that prose names and gives: "the staging db password is Tr0ub4dor&3", "密码是Xy9kP2mQ7". Group 1 names the
 * secret and is kept when masking; group 2 is the printable ASCII run after it, a credential only when its word (see
 * {@link secretWordOf}) looks like one, so "the password is required" is prose.
 */
const NAMED_SECRET =
  /((?:\b(?:password|passwd|passphrase|pwd|secret|token|api[\s_-]?key|access[\s_-]?key|private[\s_-]?key)\s+(?:is|was)\b|(?:密码|口令|密钥|令牌|私钥)\s*(?:是|为))\s*)([!-~]{6,})/giu
/** Wrapping quotes in front of a named secret's word, and quotes or sentence punctuation after it. */
const WORD_WRAPPING = /^([`"'([]*)(.*?)([`"')\].,;:!?]*)$/u

/** Units a plain quantity may end in: counts, sizes, durations, percentages. */
const UNIT = `(?:[kmbgt]|[kmgt]i?b|bytes?|bits?|ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?|mo|months?|y|yrs?|years?|tokens?|chars?|characters|%|x)`
/** Digits a plain quantity may hold (an epoch in milliseconds has 13); a longer run of digits is a token's shape. */
const QUANTITY_DIGITS_MAX = 15
/** A number, date or time, with at most one unit: not a secret by its shape. */
const PLAIN_QUANTITY = new RegExp(String.raw`^[+-]?\d[\d.,:/_-]*${UNIT}?$`, 'iu')
/** Words of one case (an upper-case constant too) joined by hyphens or underscores: not a secret by its shape. */
const PLAIN_WORDS = /^(?:[a-z]+(?:[-_][a-z]+)*|[A-Z]+(?:[-_][A-Z]+)*)$/u
/** Property names that name a password, whose value may be all digits (a PIN) or plain words (a passphrase). */
const PASSWORD_PROPERTY = /(?:password|passwd|passphrase|passcode|(?<![a-z])(?:pin|pwd)(?![a-z])|密码|口令)/iu
/** Property names that name a measure of a secret (its length, lifetime, count), not the secret. */
const MEASURE_PROPERTY =
  /(?:limit|length|count|size|(?<![a-z])(?:max|min|age)(?![a-z])|budget|ttl|expir|lifetime|attempts|retries|rotation|window|quota|长度|上限|次数|有效期)/iu

/** Property names that make any secret-shaped value a credential (see {@link looksLikeSecretValue}). */
const CREDENTIAL_PROPERTY =
  /(?:password|passwd|passphrase|secret|token|api[\s_-]?key|private[\s_-]?key|credential|access[\s_-]?key|密码|口令|密钥|令牌|私钥)/iu

/** Card numbers start with 2-6 (Mastercard, Visa, Amex, Discover, UnionPay …); a + in front is a phone number. */
const CARD = /(?<![\d+])[2-6](?:[ -]?\d){12,18}(?!\d)/gu

/**
 * Scan one fact for sensitive content.
 * @param property - the fact's property (its name can make a value a credential, phone or ID number).
 * @param value - the text to scan: a value, a subject or any free text.
 * @param noun - what the text is, for the finding's reason.
 * @returns the strongest finding (credential before personal data), or `undefined` when clean.
 */
export function scanPrivacy(property: string, value: string, noun = 'value'): PrivacyFinding | undefined {
  return findCredential(property, value, noun) ?? findPersonalData(property, value, noun)
}

/**
 * A fact's qualifiers as a view may show them: each value that is a credential, judged with its key as the property
 * (as a write judges it), masked whole; every credential inside a key masked; everything else as stored.
 * @param qualifiers - the stored qualifiers.
 * @returns the qualifiers with each credential replaced by {@link MASK}.
 */
export function maskQualifiers(qualifiers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(qualifiers).map(([key, text]) => [
      maskCredentials(key),
      findCredential(key, text, 'qualifier') === undefined ? text : MASK,
    ]),
  )
}

/** A fact's quote as the fact may keep it, and the personal data it still holds. */
export interface QuoteScan {
  /** The quote with every credential in it masked. */
  readonly quote: string
  /** Personal data in the masked quote, which makes the fact as sensitive as if its value held it. */
  readonly finding: PrivacyFinding | undefined
}

/**
 * Scan a fact's quote. A quote is where a fact came from, not the fact: a credential inside it is masked, in every
 * mode of `refuseCredentials`, instead of refusing or hiding a value that holds none, while personal data stays (it
 * is the user's own) and marks the fact sensitive. Only the quote's content is judged; the fact's property names its
 * value, not the quote.
 * @param quote - the quote as given.
 * @param known - values judged credentials (the fact's own value, when it is one), masked wherever they occur.
 * @returns the masked quote and what personal data it holds.
 */
export function scanQuote(quote: string, known: readonly string[]): QuoteScan {
  const masked = maskCredentials(quote, known)
  return { quote: masked, finding: findPersonalData('', masked, 'quote') }
}

/**
 * Mask every credential inside a free text: what the scan's patterns find (an assignment keeps its key, a bearer
 * its word, a URL its scheme and user), a secret a sentence names and gives (the sentence stays), whole private key
 * blocks, long random-looking tokens, payment card numbers, and each occurrence of a value already judged a
 * credential where no pattern would see it (a password named only by its fact's property). Masking masked text
 * changes nothing.
 * @param text - any text.
 * @param known - values judged credentials elsewhere; empty ones are ignored.
 * @returns the text with each credential replaced by {@link MASK}.
 */
export function maskCredentials(text: string, known: readonly string[] = []): string {
  let masked = text
  for (const value of [...known].filter((entry) => entry !== '').sort((a, b) => b.length - a.length))
    masked = masked.split(value).join(MASK)
  masked = masked.replace(PRIVATE_KEY_BLOCK, MASK)
  for (const [pattern] of CREDENTIAL_PATTERNS) {
    masked = masked.replace(
      new RegExp(pattern.source, `${pattern.flags}g`),
      (...match: unknown[]) => `${typeof match[1] === 'string' ? match[1] : ''}${MASK}`,
    )
  }
  masked = masked.replace(NAMED_SECRET, (whole: string, name: string, run: string) => {
    const word = secretWordOf(run, name)
    return word === undefined ? whole : `${name}${word.before}${MASK}${word.after}`
  })
  masked = masked.replace(WORD, (token) => (isHighEntropyToken(token) ? MASK : token))
  return masked.replace(CARD, (digits) => (isCard(digits) ? MASK : digits))
}

function findCredential(property: string, value: string, noun: string): PrivacyFinding | undefined {
  for (const [pattern, reason] of CREDENTIAL_PATTERNS) {
    if (pattern.test(value)) return { sensitivity: 'credential', reason: `the ${noun} looks like ${reason}` }
  }
  if (CREDENTIAL_PROPERTY.test(property) && looksLikeSecretValue(value, property)) {
    return { sensitivity: 'credential', reason: `"${property}" names a secret and the ${noun} looks like one` }
  }
  for (const match of value.matchAll(NAMED_SECRET)) {
    if (secretWordOf(match[2] ?? '', match[1] ?? '') !== undefined)
      return { sensitivity: 'credential', reason: `the ${noun} names a password or key and gives it` }
  }
  for (const token of value.match(WORD) ?? []) {
    if (isHighEntropyToken(token))
      return { sensitivity: 'credential', reason: `the ${noun} holds a long random-looking token` }
  }
  for (const match of value.matchAll(CARD)) {
    if (isCard(match[0])) return { sensitivity: 'credential', reason: `the ${noun} holds a payment card number` }
  }
  return undefined
}

/**
 * The word a named secret gives, split from the quotes and sentence punctuation around it, when that word looks like
 * a secret; `undefined` for prose ("required", "rotated.").
 */
function secretWordOf(run: string, name: string): { readonly before: string; readonly after: string } | undefined {
  const [, before = '', word = '', after = ''] = WORD_WRAPPING.exec(run) ?? []
  return looksLikeSecretValue(word, name) ? { before, after } : undefined
}

/**
 * A value is secret-shaped when it is one word of 6+ characters, not plain prose (it holds a digit, a symbol or an
 * inner capital), and not a plain quantity or plain words: a number, date or time (digits and separators) with at
 * most one unit from {@link UNIT} and at most 15 digits ("128000", "4k", "1,000,000", "3600s", "512MB",
 * "2026-03-01"), or words of one case, alone or joined by hyphens or underscores ("per-session", "ENABLED",
 * "FROM_ENV"). A property that names a password and no measure keeps both as secrets (a PIN is all digits, a
 * passphrase is plain words), so "password · 12345678" is one and "password min length · 128000" is not.
 * @param value - the value, or the word a sentence gives for a named secret.
 * @param property - the property, or the words that named the secret.
 * @returns whether the value is shaped like a secret.
 */
function looksLikeSecretValue(value: string, property: string): boolean {
  const trimmed = value.trim()
  if (trimmed.length < 6 || /\s/u.test(trimmed)) return false
  if (!(/\d/u.test(trimmed) || /[^A-Za-z]/u.test(trimmed) || /[A-Z]/u.test(trimmed.slice(1)))) return false
  if (PASSWORD_PROPERTY.test(property) && !MEASURE_PROPERTY.test(property)) return true
  const quantity = PLAIN_QUANTITY.test(trimmed) && (trimmed.match(/\d/gu)?.length ?? 0) <= QUANTITY_DIGITS_MAX
  return !quantity && !PLAIN_WORDS.test(trimmed)
}

/**
 * A token of 24+ characters mixing upper case, lower case and digits with high character entropy. Pure hex
 * (digests, commit ids) and dotted or slashed names are left alone.
 */
function isHighEntropyToken(token: string): boolean {
  if (token.length < 24 || token.length > 512) return false
  if (/^[0-9a-f]+$/iu.test(token)) return false
  if (/[./\\:@]/u.test(token)) return false
  if (!/[A-Z]/u.test(token) || !/[a-z]/u.test(token) || !/\d/u.test(token)) return false
  return shannonBitsPerChar(token) >= 4
}

function shannonBitsPerChar(text: string): number {
  const counts = new Map<string, number>()
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1)
  let bits = 0
  for (const count of counts.values()) {
    const p = count / text.length
    bits -= p * Math.log2(p)
  }
  return bits
}

/** A card number: Luhn-valid, and not a Chinese resident ID (18 digits that are personal data, not a credential). */
function isCard(digits: string): boolean {
  const plain = digits.replace(/\D/gu, '')
  return luhnValid(plain) && !isResidentId(plain)
}

function luhnValid(digits: string): boolean {
  if (digits.length < 13 || digits.length > 19 || /^(\d)\1+$/u.test(digits)) return false
  let sum = 0
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i])
    if (i % 2 === 1) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
  }
  return sum % 10 === 0
}
