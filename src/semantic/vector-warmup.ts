/**
 * The vector index's warm start. With an embedding channel configured, the sign codes of the space in force are loaded
 * into the index in the background as soon as the plugin is configured (and again for another model or data
 * directory), a slice at a time between turns of the event loop. A one-shot headless run searches within moments of
 * starting (its first message's recall, then the model's first memory_search), and its first vector query then finds
 * the codes in memory instead of reading them itself; the query's embedding, a round trip to the endpoint, gives the
 * load the time it needs. Nothing is read while the channel is off, and a failure only leaves the load to the first
 * search, as before.
 */
import type { ResolvedConfig } from '../config.ts'
import { messageOf } from '../errors.ts'
import type { OpenStores } from '../store/store-set.ts'
import { embeddingSettings } from './settings.ts'
import type { VectorIndex } from './vector-index.ts'

/** What the warm start needs, each read when used. */
export interface VectorWarmupDeps {
  readonly index: VectorIndex
  readonly stores: () => OpenStores | undefined
  readonly logger: { warn(format: string, ...args: unknown[]): void }
  /** Awaited between slices of the load; the next turn of the event loop unless given. */
  readonly pause?: () => Promise<void>
}

/** The codes this process holds for the vector scan of the model in force. */
export interface HeldVectors {
  readonly vectors: number
  /** The index's memory for the space: the codes, their fact ids and a search's scratch. */
  readonly bytes: number
}

/** Loads the vector index ahead of the first search. */
export class VectorWarmup {
  private readonly deps: VectorWarmupDeps
  private readonly pause: () => Promise<void>
  /** The store and fingerprint last loaded for (or being loaded). */
  private loadedFor: { readonly stores: OpenStores; readonly fingerprint: string } | undefined
  private abort = new AbortController()
  private running: Promise<void> = Promise.resolve()

  constructor(deps: VectorWarmupDeps) {
    this.deps = deps
    this.pause =
      deps.pause ??
      (() =>
        new Promise((resolve) => {
          setImmediate(resolve)
        }))
  }

  /**
   * Follow a configuration: with the plugin on and an embedding channel configured, load the space of its fingerprint
   * in the store now open, unless that was already done; otherwise stop any load under way.
   * @param config - the configuration in force.
   */
  follow(config: ResolvedConfig | undefined): void {
    const settings = config === undefined || !config.enabled ? undefined : embeddingSettings(config)
    const stores = this.deps.stores()
    if (settings?.configured !== true || stores === undefined) {
      this.abort.abort()
      this.loadedFor = undefined
      return
    }
    if (this.loadedFor?.stores === stores && this.loadedFor.fingerprint === settings.fingerprint) return
    this.abort.abort()
    this.abort = new AbortController()
    this.loadedFor = { stores, fingerprint: settings.fingerprint }
    this.running = this.load(stores, settings.fingerprint, this.abort.signal)
  }

  /**
   * What the index holds for the model in force, in this process.
   * @param config - the configuration in force.
   * @returns the vectors and bytes held, or undefined when nothing is loaded (the channel off, or no search or load yet).
   */
  held(config: ResolvedConfig | undefined): HeldVectors | undefined {
    const settings = config === undefined ? undefined : embeddingSettings(config)
    const stores = this.deps.stores()
    if (settings?.configured !== true || stores === undefined) return undefined
    const space = stores.vectors.space(settings.fingerprint)
    if (space === undefined) return undefined
    const { facts, bytes } = this.deps.index.footprint(stores.vectors, space.id)
    return bytes === 0 ? undefined : { vectors: facts, bytes }
  }

  /** @returns a promise settled once the load under way (if any) has ended, loaded or not. */
  whenLoaded(): Promise<void> {
    return this.running
  }

  /** Stop a load under way and wait for it to let go of the store. */
  async stop(): Promise<void> {
    this.abort.abort()
    this.loadedFor = undefined
    await this.running
  }

  private async load(stores: OpenStores, fingerprint: string, signal: AbortSignal): Promise<void> {
    // Never inside the configuration's own call: the host finishes loading the plugin first.
    await this.pause()
    if (signal.aborted) return
    try {
      const space = stores.vectors.space(fingerprint)
      if (space !== undefined) await this.deps.index.preload(stores.vectors, space.id, this.pause, signal)
    } catch (error) {
      // A store closed under the load, say: the first search loads the codes itself.
      if (!signal.aborted) this.deps.logger.warn('the vector index was not loaded ahead: %s', messageOf(error))
    }
  }
}
