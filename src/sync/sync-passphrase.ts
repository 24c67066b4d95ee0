/**
 * Turns the `syncPassphraseRef` setting into the cipher the sync files are sealed with: the reference is resolved in
 * the host credential store (`ctx.credentials.resolve`), never read from config, and the passphrase lives only inside
 * the cipher. No reference, or one with no value, means plain files; a store that fails is a failure in words that
 * never carries the passphrase.
 */
import { SegmentCipher } from './segment-cipher.ts'

/** The host's credential lookup, as `ctx.credentials.resolve` answers. */
export type ResolveCredential = (ref: string) => Promise<{ readonly value: string } | undefined>

/** The cipher (none: plain files), or why the passphrase could not be read. */
export type SyncCipherRead =
  | { readonly ok: true; readonly cipher: SegmentCipher | undefined }
  | { readonly ok: false; readonly reason: string }

/**
 * Resolve the passphrase and make the cipher: once per settings change, since the cipher caches its derived keys.
 * @param ref - the credential reference; null: plain files.
 * @param resolve - the host's credential lookup.
 * @returns the cipher, none, or why not.
 */
export async function resolveSyncCipher(ref: string | null, resolve: ResolveCredential): Promise<SyncCipherRead> {
  if (ref === null) return { ok: true, cipher: undefined }
  let found: { readonly value: string } | undefined
  try {
    found = await resolve(ref)
  } catch {
    return {
      ok: false,
      reason: `the sync passphrase "${ref}" could not be read from the credential store; nothing is synced until it can`,
    }
  }
  const value = found?.value ?? ''
  return { ok: true, cipher: value === '' ? undefined : new SegmentCipher(value) }
}
