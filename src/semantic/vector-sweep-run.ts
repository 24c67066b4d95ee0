/**
 * One vector sweep: vectors of facts no longer eligible (forgotten, sensitive, hidden from the model) are removed
 * first; then every eligible fact without a vector at its revision in the current space is looked at — a fact whose
 * text is unchanged keeps its vector (only its revision is stamped), the others are embedded in batches of
 * {@link EMBED_BATCH} with at most {@link EMBED_CONCURRENCY} requests in flight. The first round with a failing answer
 * ends the sweep (what it stored, that round's good answers included, stays stored; the rest waits for the next
 * sweep, never retried in a loop). Only sensitive-free
 * facts are ever listed, so no sensitive text reaches the endpoint.
 */
import { messageOf } from '../errors.ts'
import type { VectorStore } from '../store/vector-store.ts'
import { factText, textHash } from './input-text.ts'
import { normalize, quantize } from './quantize.ts'
import { embedTexts } from './embedding-gateway.ts'
import { embeddingEndpoint, shownUrl, type EmbeddingSettings } from './settings.ts'
import type { EmbedAnswer, EndpointAccess, EndpointFailure } from './types.ts'

/** Texts per embedding request. */
export const EMBED_BATCH = 32
/** Embedding requests in flight at once. */
export const EMBED_CONCURRENCY = 2
/** How long one batch request may take. */
export const EMBED_CALL_TIMEOUT_MS = 30_000

/**
 * The embed function a sweep is given: the gateway for the channel, its key resolved at each call.
 * @param access - keys and fetch.
 * @param settings - the configured embedding channel.
 * @returns the function.
 */
export function sweepEmbedder(
  access: EndpointAccess,
  settings: Extract<EmbeddingSettings, { configured: true }>,
): VectorSweepDeps['embed'] {
  return async (texts, signal) =>
    embedTexts(
      embeddingEndpoint(settings, await access.key(settings.keyName)),
      texts,
      { timeoutMs: EMBED_CALL_TIMEOUT_MS, signal },
      access.fetch,
    )
}

/** What a sweep needs. */
export interface VectorSweepDeps {
  readonly vectors: VectorStore
  readonly settings: Extract<EmbeddingSettings, { configured: true }>
  /** Embed texts (the gateway, key resolved); failures are answers. */
  readonly embed: (texts: readonly string[], signal: AbortSignal) => Promise<EmbedAnswer>
  readonly now: () => string
  readonly signal: AbortSignal
  /**
   * Look only at facts changed (updated_at) at or after this ISO instant: the sweep a write asks for. Without it the
   * sweep looks at every fact, as the timed and the manual sweeps do, so nothing a narrow sweep missed stays missed.
   */
  readonly since?: string | undefined
}

/** What one sweep did. */
export interface VectorSweepResult {
  readonly outcome: 'swept' | 'failed' | 'cancelled'
  readonly fingerprint: string
  /** Facts given a new vector. */
  readonly embedded: number
  /** Facts whose text had not changed: their vector kept, its revision stamped. */
  readonly rechecked: number
  /** Vectors removed because their fact is no longer eligible. */
  readonly pruned: number
  /** The first failure, which ended the sweep. */
  readonly error: { readonly code: EndpointFailure['code'] | 'internal_error'; readonly message: string } | null
  readonly startedAt: string
  readonly finishedAt: string
}

/** Facts read per round: enough batches to keep the requests in flight busy. */
const ROUND = EMBED_BATCH * EMBED_CONCURRENCY * 2

/**
 * Run one sweep.
 * @param deps - the vector store, the embedding channel, the gateway and the clock.
 * @returns what it did.
 */
export async function runVectorSweep(deps: VectorSweepDeps): Promise<VectorSweepResult> {
  const { vectors, settings } = deps
  const startedAt = deps.now()
  const tally = { embedded: 0, rechecked: 0, pruned: 0 }
  let spaceId: number | undefined
  // Every sweep that reached its space leaves its outcome there, for status in any process sharing the file.
  const finish = (outcome: VectorSweepResult['outcome'], error: VectorSweepResult['error']): VectorSweepResult => {
    const result: VectorSweepResult = {
      outcome,
      fingerprint: settings.fingerprint,
      ...tally,
      error,
      startedAt,
      finishedAt: deps.now(),
    }
    try {
      if (spaceId !== undefined) vectors.recordSweep(spaceId, JSON.stringify(result))
    } catch {
      // The outcome is still answered; only its record is lost.
    }
    return result
  }
  try {
    tally.pruned = vectors.pruneIneligible(deps.since)
    const space = vectors.ensureSpace(
      settings.fingerprint,
      { ...settings.identity, baseUrl: shownUrl(settings.identity.baseUrl) },
      startedAt,
    )
    spaceId = space.id
    let dim =
      space.dim === 0 && settings.identity.dim > 0 ? vectors.fixDimension(space.id, settings.identity.dim) : space.dim
    // Facts are read in id order from a cursor, so one that cannot get a vector (an all-zero answer, a revision
    // moving under the sweep) is passed over, never read again and again in front of the rest.
    let afterId = 0
    for (;;) {
      if (deps.signal.aborted) return finish('cancelled', null)
      const rows = vectors.factsNeedingVectors(space.id, ROUND, deps.since, afterId)
      if (rows.length === 0) break
      afterId = rows.at(-1)?.id ?? afterId
      const texts = rows.map((row) => factText(row))
      const hashes = texts.map((text) => textHash(text))
      const unchanged = rows.filter((row, index) => row.storedHash === hashes[index])
      if (unchanged.length > 0) {
        vectors.recheck(
          space.id,
          unchanged.map((row) => ({ factId: row.id, revision: row.revision })),
        )
        tally.rechecked += unchanged.length
      }
      const pending = rows
        .map((row, index) => ({ row, text: texts[index] ?? '', hash: hashes[index] ?? '' }))
        .filter(({ row, hash }) => row.storedHash !== hash)
      const batches: (typeof pending)[] = []
      for (let start = 0; start < pending.length; start += EMBED_BATCH)
        batches.push(pending.slice(start, start + EMBED_BATCH))
      for (let start = 0; start < batches.length; start += EMBED_CONCURRENCY) {
        const round = batches.slice(start, start + EMBED_CONCURRENCY)
        const answers = await Promise.all(
          round.map((batch) =>
            deps.embed(
              batch.map((item) => item.text),
              deps.signal,
            ),
          ),
        )
        // Every good answer of the round is stored, even when another request of it failed.
        let failure: VectorSweepResult['error'] = null
        for (const [position, answer] of answers.entries()) {
          if (!answer.ok) {
            if (deps.signal.aborted) return finish('cancelled', null)
            failure ??= { code: answer.code, message: answer.message }
            continue
          }
          if (dim === 0) dim = vectors.fixDimension(space.id, answer.dim)
          if (answer.dim !== dim) {
            failure ??= {
              code: 'wrong_dimension',
              message: `the endpoint returned ${answer.dim}-dimensional vectors; the vectors of this fingerprint have ${dim}`,
            }
            continue
          }
          const batch = round[position] ?? []
          const stored = batch.flatMap((item, index) => {
            const unit = answer.vectors[index] === undefined ? undefined : normalize(answer.vectors[index])
            if (unit === undefined) return []
            const packed = quantize(unit)
            return [
              {
                factId: item.row.id,
                revision: item.row.revision,
                textHash: item.hash,
                scale: packed.scale,
                bits: packed.bits,
                quantized: packed.quantized,
              },
            ]
          })
          vectors.storeVectors(space.id, stored, deps.now())
          tally.embedded += stored.length
        }
        if (failure !== null) return finish('failed', failure)
      }
    }
    return finish('swept', null)
  } catch (error) {
    return finish('failed', { code: 'internal_error', message: messageOf(error) })
  }
}
