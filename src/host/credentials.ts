/** The host credential store seen through the narrow view the key verb uses (references are host-branded strings). */
import type { CredentialProvider, CredentialRef } from '@deepseek-ai/dsh-credentials'
import type { CredentialsView } from '../management/verb.ts'

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
      return { configured: info.configured, writable: info.writable, ...(info.source === undefined ? {} : { source: String(info.source) }) }
    },
  }
}
