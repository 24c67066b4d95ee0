/**
 * The management routes' handler, bound to a live runtime: verbs, the page's assets, export downloads, fence settings
 * and request-time context.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Clock } from '../clock.ts'
import type { MemoryRuntime } from '../runtime.ts'
import { createConfirmationBook } from './confirmations.ts'
import { parseAllowedHosts } from './fence.ts'
import { ASSET_PREFIX, serveAsset } from './assets.ts'
import { EXPORT_FILE_PREFIX, serveExportFile } from './export-files.ts'
import { createRouteHandler } from './http.ts'
import type { ExtractionView, ReviewView, SemanticView, VectorsView } from '../management/verb.ts'
import type { CredentialsView } from '../host/credentials.ts'
import { VERBS } from '../management/verbs.ts'

/** The background services the verbs reach, each absent where the host does not run it. */
export interface ManagementServices {
  /** Automatic capture, for the queue and one-off extraction verbs. */
  readonly extraction?: ExtractionView | undefined
  /** The near-duplicate review, for the consolidate verb. */
  readonly review?: ReviewView | undefined
  /** The vector sweep, for index-vectors and status. */
  readonly vectors?: VectorsView | undefined
  /** The reranker, for calibrate. */
  readonly semantic?: SemanticView | undefined
}

/**
 * Build the handler for POST /api/fact-memory/<verb>.
 * @param runtime - the live plugin state (store and configuration).
 * @param clock - the clock.
 * @param credentials - the host credential store, looked up per request (optional service).
 * @param services - the background services the verbs reach.
 * @returns the request handler.
 */

export function managementHandler(
  runtime: MemoryRuntime,
  clock: Clock,
  credentials: () => CredentialsView | undefined,
  services: ManagementServices = {},
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const confirmations = createConfirmationBook(clock)
  // Read per request: the variable may change without a restart, and is never read at import time.
  const allowedHosts = (): readonly string[] => parseAllowedHosts(process.env['DSH_FACT_MEMORY_ALLOWED_HOSTS'])
  const api = createRouteHandler({
    verbs: VERBS,
    allowedHosts,
    stores: () => runtime.memory.stores(),
    context: () => ({
      config: runtime.config(),
      clock,
      now: () => new Date(clock.now()).toISOString(),
      credentials: credentials(),
      confirmations,
      memory: {
        status: () => runtime.memory.status(),
        advance: () => runtime.memory.advance(),
        search: (ask) => runtime.memory.search(ask, runtime.config()),
      },
      extraction: services.extraction,
      audit: runtime.audit,
      review: services.review,
      vectors: services.vectors,
      semantic: services.semantic,
      sync: runtime.sync,
      team: runtime.team,
    }),
  })
  return async (req, res) => {
    const url = req.url ?? ''
    if (url.startsWith(ASSET_PREFIX)) return serveAsset(req, res, allowedHosts())
    if (url.startsWith(EXPORT_FILE_PREFIX)) {
      const opened = runtime.memory.stores()
      return serveExportFile(req, res, allowedHosts(), 'stores' in opened ? opened.stores : undefined)
    }
    return api(req, res)
  }
}
