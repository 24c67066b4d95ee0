/** Maintenance verbs: rebuild (the full-text index), wipe ("Clear everything", confirmed and backed up), key. */
import { indexEntriesOf } from '../fact-input.ts'
import { ok, refuse, runFenced, verb } from './verb.ts'
import { takeBackup, type BackupReceipt } from './backups.ts'

/** rebuild: re-derive the full-text and identifier indexes from the facts. */
export const rebuildVerb = verb('rebuild', {
  run(body, context) {
    const { stores } = context
    return runFenced(stores, 'rebuild', body, context.now(), () =>
      ok({ indexed: stores.facts.rebuildIndexes((fact) => indexEntriesOf(fact)) }),
    )
  },
})

/**
 * wipe: the first call answers confirm_required with a short-lived token bound to the store generation; the second
 * call, carrying it, takes a backup (when backupBeforeWipe is on) and clears the memory.
 */
export const wipeVerb = verb('wipe', {
  async run(body, context) {
    const { stores, config } = context
    const generation = stores.db.generation()
    if (body.confirmToken === undefined) {
      if (generation !== body.expectedGeneration) {
        return refuse('stale', `the store changed since this page read it (generation ${generation}); refresh first`, {
          stale: true,
          generation,
        })
      }
      const counts = stores.facts.counts()
      const { token, expiresAt } = context.confirmations.issue('wipe', generation)
      return refuse(
        'confirm_required',
        `Clear everything removes every fact, proposal and conflict${config.backupBeforeWipe ? ' after taking a backup' : ''}; send confirmToken to confirm`,
        { confirmToken: token, expiresAt, counts, backupBeforeWipe: config.backupBeforeWipe },
      )
    }
    const replay = stores.operations.find(body.operationId)
    if (replay === undefined) {
      if (generation !== body.expectedGeneration) {
        return refuse('stale', `the store changed since this page read it (generation ${generation}); refresh first`, {
          stale: true,
          generation,
        })
      }
      if (!context.confirmations.consume('wipe', body.confirmToken, generation)) {
        return refuse('confirm_required', 'the confirmation expired or belongs to another request; ask again')
      }
    }
    let backup: BackupReceipt | null = null
    if (replay === undefined && config.backupBeforeWipe)
      backup = await takeBackup(stores, 'wipe', context.now(), config.backupKeep)
    return runFenced(stores, 'wipe', body, context.now(), () => {
      return ok({ removed: stores.facts.wipe(), backup })
    })
  },
})

/** key: store an API key in the host credential store under the configured name; the value is never returned. */
export const keyVerb = verb('key', {
  storeless: true,
  async run(body, context) {
    const credentials = context.credentials
    if (credentials === undefined) return refuse('unavailable', 'this host offers no credential store')
    const name = {
      llm: context.config.llmApiKeyEnv,
      embedding: context.config.embeddingApiKeyEnv,
      rerank: context.config.rerankApiKeyEnv,
      sync: context.config.syncPassphraseRef,
    }[body.ref].trim()
    if (name === '') return refuse('invalid_arguments', `no credential name is set for the ${body.ref} key`)
    try {
      await credentials.set(name, body.value.trim())
      const described = await credentials.describe(name)
      return ok({
        ref: body.ref,
        name,
        configured: described.configured,
        source: described.source ?? null,
        writable: described.writable,
      })
    } catch (error) {
      // The message says why (e.g. an environment variable of that name wins); it never contains the value.
      return refuse(
        'refused',
        `the host credential store did not take the key: ${error instanceof Error ? error.message : 'unknown reason'}`,
      )
    }
  },
})
