/** The status, activity, review-seen and sessions verbs: what the store holds and what arrived lately. */
import { ok, verb } from './verb.ts'
import { lastBackup } from './backups.ts'
import { semanticStatus } from './semantic-status.ts'
import { withRecalls } from './session-recalls.ts'
import { CHARS_PER_TOKEN } from '../directory.ts'

/** Recalls the cost in status is averaged over. */
const RECALL_COST_SAMPLE = 50

/**
 * status: counts, generation, driver, data dir, store id, last backup; {summary:true} for the badge, whether capture is
 * on and the zone the page shows dates in; {force:true} runs the maintenance pass now.
 */
export const statusVerb = verb('status', {
  storeless: true,
  run(body, context) {
    const advanced = body.force === true ? (context.memory.advance() ?? null) : null
    const status = context.memory.status()
    const counts = status.counts
    const badge = counts === null ? 0 : counts.pendingProposals + counts.openConflictGroups
    if (body.summary === true) {
      return ok({
        available: status.available,
        generation: status.generation,
        badge,
        pendingProposals: counts?.pendingProposals ?? 0,
        openConflictGroups: counts?.openConflictGroups ?? 0,
        autoCapture: context.config.enabled && context.config.autoCapture,
        autoExtract: context.config.enabled && context.config.autoExtract,
        recall: context.config.enabled && context.config.recallBudgetTokens > 0,
        timeZone: context.config.displayTimeZone,
      })
    }
    const meta = context.stores?.meta
    return ok({
      available: status.available,
      error: status.error,
      generation: status.generation,
      storeId: status.storeId,
      driver: status.driver,
      fallbackReason: status.fallbackReason,
      dataDir: status.dataDir,
      counts,
      badge,
      lastBackup: status.dataDir === null ? null : lastBackup(status.dataDir),
      reviewSeenAt: meta?.get('review_seen_at') ?? null,
      timeZone: context.config.displayTimeZone,
      enabled: context.config.enabled,
      autoCapture: context.config.autoCapture,
      autoExtract: context.config.autoExtract,
      semantic: semanticStatus(context.config, context.stores, context.vectors, context.semantic),
      recall: {
        on: context.config.enabled && context.config.recallBudgetTokens > 0,
        budgetChars: context.config.recallBudgetTokens * CHARS_PER_TOKEN,
        maxFacts: context.config.recallMaxFacts,
        minScore: context.config.recallMinScore,
        timeoutMs: context.config.recallTimeoutMs,
        recent: context.stores?.recalls.cost(RECALL_COST_SAMPLE) ?? null,
      },
      maintenance: { intervalMs: context.config.advanceIntervalMs, advanced },
      sync: context.sync?.status() ?? null,
      team: context.team?.status() ?? [],
    })
  },
})

/** activity: a digest of what arrived since the queue was last marked as seen. */
export const activityVerb = verb('activity', {
  run(_body, context) {
    const since = context.stores.meta.get('review_seen_at')
    const counts = context.stores.facts.counts()
    return ok({
      since: since ?? null,
      ...context.stores.library.activity(since),
      pendingProposals: counts.pendingProposals,
      openConflictGroups: counts.openConflictGroups,
    })
  },
})

/** review-seen: mark everything up to now as seen, so the digest starts afresh; it changes no fact, so the generation stays. */
export const reviewSeenVerb = verb('review-seen', {
  run(_body, context) {
    const seenAt = context.now()
    context.stores.meta.set('review_seen_at', seenAt)
    return ok({ seenAt, generation: context.stores.db.generation() })
  },
})

/** sessions: per conversation and per turn, the facts written, pending proposals and unsettled conflicts, and whether memory is paused there. */
export const sessionsVerb = verb('sessions', {
  run(body, context) {
    // Turns that queued or running extraction has yet to settle: their cards keep asking until they are not listed.
    const pending = (sessionId: string): readonly number[] => context.extraction?.pendingTurns(sessionId) ?? []
    const listed = context.stores.library.sessions(body.sessionIds, body.limit ?? 50)
    const recalled = context.stores.recalls.recalledByTurn(
      body.sessionIds ?? listed.map((session) => session.sessionId),
    )
    const paused = (sessionId: string): boolean => context.stores.pauses.isPaused(sessionId)
    const sessions = withRecalls(listed, recalled, body.sessionIds).map((session) => ({
      ...session,
      extractingTurns: pending(session.sessionId),
      paused: paused(session.sessionId),
    }))
    const known = new Set(sessions.map((session) => session.sessionId))
    const quietOnly = (body.sessionIds ?? [])
      .filter((sessionId) => !known.has(sessionId) && (pending(sessionId).length > 0 || paused(sessionId)))
      .map((sessionId) => ({
        sessionId,
        facts: 0,
        pending: 0,
        unsettled: 0,
        lastAt: '',
        turns: [],
        extractingTurns: pending(sessionId),
        paused: paused(sessionId),
      }))
    return ok({ sessions: [...sessions, ...quietOnly] })
  },
})
