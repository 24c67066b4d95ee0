/**
 * Pure masking of what a tool's answer repeats from its arguments: every argument text that holds a credential
 * (a key given as a subject, a property, a value, a qualifier or a field name) is masked wherever the answer repeats
 * it, whole or token by token, in every string of the value. Text the answer did not take from its arguments is
 * left as it is, so an ordinary stored value is never masked for looking random.
 */
import { maskCredentials } from '../text/privacy.ts'

/**
 * Mask the arguments' credentials in a tool value.
 * @param value - the tool value (plain JSON).
 * @param args - the arguments as the model sent them, valid or not.
 * @returns the value with each repeated credential replaced as maskCredentials would replace it.
 */
export function maskEchoes<T>(value: T, args: unknown): T {
  const replacements = echoReplacements(args)
  return replacements.length === 0 ? value : maskStrings(value, replacements)
}

/** Each argument text (and each token of one) that holds a credential, with its masked form; longest first. */
function echoReplacements(args: unknown): [string, string][] {
  const found = new Map<string, string>()
  for (const text of argumentTexts(args)) {
    const masked = maskCredentials(text)
    if (masked === text) continue
    found.set(text, masked)
    for (const token of text.split(/\s+/u)) {
      const maskedToken = maskCredentials(token)
      if (token !== '' && maskedToken !== token) found.set(token, maskedToken)
    }
  }
  return [...found].sort(([a], [b]) => b.length - a.length)
}

/** Every string inside the arguments: values and object keys, at any depth. */
function argumentTexts(args: unknown): string[] {
  if (typeof args === 'string') return [args]
  if (Array.isArray(args)) return args.flatMap(argumentTexts)
  if (args !== null && typeof args === 'object')
    return Object.entries(args).flatMap(([key, entry]) => [key, ...argumentTexts(entry)])
  return []
}

function maskStrings<T>(value: T, replacements: readonly [string, string][]): T {
  if (typeof value === 'string')
    return replacements.reduce((text, [from, to]) => text.split(from).join(to), value as string) as T
  if (Array.isArray(value)) return value.map((entry: unknown) => maskStrings(entry, replacements)) as T
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, maskStrings(entry, replacements)])) as T
  }
  return value
}
