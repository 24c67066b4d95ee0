/** The host credential store seen through the narrow view the key verb uses (references are host-branded strings). */
import type { CredentialProvider, CredentialRef } from '@deepseek-ai/dsh-credentials'

/** The host credential store, as the key verb uses it (management/verb.ts's context carries one). */
export interface CredentialsView {
  set(ref: string, value: string): Promise<void>
  describe(ref: string): Promise<{ configured: boolean; source?: string; writable: boolean }>
}

/**
 * Adapt the host's credential provider.
 * @param provider - `ctx.get('credentials')`, absent on hosts without a credential store.
 * @returns the view, or undefined.
 */
export function credentialsView(provider: CredentialProvider | undefined): CredentialsView | undefined {
  if (provider === undefined) return undefined
  return {
    // Brand cast point: a credential reference is the configured name.
    set: (ref, value) => provider.set(ref as CredentialRef, value),
    describe: async (ref) => {
      const info = await provider.describe(ref as CredentialRef)
      return {
        configured: info.configured,
        writable: info.writable,
        ...(info.source === undefined ? {} : { source: String(info.source) }),
      }
    },
  }
}

/**
 * A key by credential name: the host credential store first, then an environment variable of that name. The value
 * is returned to the caller only; it is never logged.
 * @param credentials - the host's credential provider, if any.
 * @param name - the configured credential name.
 * @returns the key, or undefined when neither has it (or the name is blank).
 */
export async function resolveCredential(
  credentials: CredentialProvider | undefined,
  name: string,
): Promise<string | undefined> {
  if (name.trim() === '') return undefined
  try {
    // Brand cast point: a credential reference is the configured name.
    const resolved = await credentials?.resolve(name as CredentialRef)
    if (resolved !== undefined && resolved.value !== '') return resolved.value
  } catch {
    // An unreadable store falls back to the environment.
  }
  const fromEnv = process.env[name]
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv
}

/**
 * A key that must never be taken as absent while it cannot be looked up: like {@link resolveCredential}, but with no
 * credential store to ask (not started yet, already stopped, or not reachable in this run) and nothing in the
 * environment, it throws instead of answering "no value". The sync passphrase reads this way, so a store that does
 * not answer never turns encrypted sync files into plain ones.
 * @param credentials - the host's credential provider, if any.
 * @param name - the configured credential name.
 * @returns the key, or undefined when the store answered that it has none.
 * @throws when there is no store to ask and the environment has no value.
 */
export async function resolveCredentialStrictly(
  credentials: CredentialProvider | undefined,
  name: string,
): Promise<string | undefined> {
  const value = await resolveCredential(credentials, name)
  if (value === undefined && credentials === undefined && name.trim() !== '')
    throw new Error('the host credential store is not available')
  return value
}
