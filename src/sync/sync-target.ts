/**
 * Reads the `syncTarget` setting: empty (sync off), an absolute folder path (a sync folder), or a git remote URL
 * (`ssh://`, `https://`, `file://`, or scp-like `user@host:path`). A URL that carries a password or token is refused:
 * the plugin stores no credential, and git's own credential helper or SSH keys are where one belongs. Pure.
 */
import { isAbsolute } from 'node:path'

/** What the setting names. */
export type SyncTarget =
  | { readonly kind: 'off' }
  | { readonly kind: 'folder'; readonly path: string }
  | { readonly kind: 'git'; readonly url: string }
  | { readonly kind: 'invalid'; readonly reason: string }

const SCP_LIKE = /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s]+$/u
const URL_LIKE = /^(ssh|https?|git|file):\/\//u

/**
 * Classify a `syncTarget` value.
 * @param text - the setting.
 * @returns off, a folder, a git URL, or why it is neither.
 */
export function parseSyncTarget(text: string): SyncTarget {
  const value = text.trim()
  if (value === '') return { kind: 'off' }
  if (/[\u0000-\u001F]/u.test(value)) return { kind: 'invalid', reason: 'the sync target contains control characters' }
  if (URL_LIKE.test(value)) {
    let url: URL
    try {
      url = new URL(value)
    } catch {
      return { kind: 'invalid', reason: 'the sync target is not a valid URL' }
    }
    if (url.password !== '') {
      return {
        kind: 'invalid',
        reason:
          "the sync target URL carries a password or token; keep it in git's credential helper or use an SSH key, and name the URL without it",
      }
    }
    if (url.protocol === 'http:')
      return {
        kind: 'invalid',
        reason: 'a plain http:// remote would send the memory unencrypted; use https:// or ssh://',
      }
    return { kind: 'git', url: value }
  }
  if (SCP_LIKE.test(value)) return { kind: 'git', url: value }
  if (value.startsWith('\\\\') || value.startsWith('//'))
    return { kind: 'invalid', reason: 'UNC paths are refused; map the share to a drive or mount it' }
  if (isAbsolute(value)) return { kind: 'folder', path: value }
  return {
    kind: 'invalid',
    reason:
      'the sync target must be an absolute folder path or a git remote URL (ssh://, https://, file:// or user@host:path)',
  }
}

/**
 * A URL as it may be shown or logged: any user and password part masked.
 * @param text - a URL or any text that may contain one.
 * @returns the text with `//user:secret@` and `//user@` parts masked.
 */
export function maskUrl(text: string): string {
  return text.replace(/\/\/[^/@\s]+@/gu, '//***@')
}
