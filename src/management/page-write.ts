/**
 * The write path's first step for a value the user states on the page (fact-add, fact-update, fact-put-back):
 * prepareWrite under the configuration's credential rule and display time zone, its refusal answered as the verb's.
 */
import type { ResolvedConfig } from '../config.ts'
import { prepareWrite, type PreparedWrite } from '../fact-input.ts'
import type { FactInput } from '../types.ts'
import { type Refusal, refuse } from './verb.ts'

/**
 * Prepare the user's own claim for the store.
 * @param claim - the claim as the verb built it.
 * @param config - the configuration (credential refusal, the zone bare dates are read in).
 * @param now - the instant of the write.
 * @returns the prepared write, or the refusal to answer: credential_refused or invalid_arguments, with the reason.
 */
export function preparePageWrite(
  claim: FactInput,
  config: Pick<ResolvedConfig, 'refuseCredentials' | 'displayTimeZone'>,
  now: string,
): { readonly ok: true; readonly write: PreparedWrite } | Refusal {
  const prepared = prepareWrite(claim, now, {
    refuseCredentials: config.refuseCredentials,
    timeZone: config.displayTimeZone,
  })
  return prepared.ok ? prepared : refuse(prepared.code, prepared.message)
}
