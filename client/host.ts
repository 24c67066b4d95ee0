/**
 * Narrow views of the DSH web client services the page uses (slots, settings scope, conversation events). The
 * host is React 18; slot components are React function components that receive owner props, standard hooks and
 * whatever the registration's `inject` returns.
 */

/** A React element, opaque to us. */
export type ReactNode = unknown

/** The bits of React the client uses (the host shares its React instance through `require('react')`). */
export interface ReactLike {
  createElement(type: unknown, props?: Record<string, unknown> | null, ...children: unknown[]): ReactNode
  useRef<T>(initial: T): { current: T }
  // biome-ignore lint/suspicious/noConfusingVoidType: React types an effect that may return nothing this way
  useLayoutEffect(effect: () => void | (() => void), deps?: readonly unknown[]): void
  // biome-ignore lint/suspicious/noConfusingVoidType: as above
  useEffect(effect: () => void | (() => void), deps?: readonly unknown[]): void
  useState<T>(initial: T | (() => T)): [T, (next: T | ((prev: T) => T)) => void]
}

/** A registration into a slot. */
export interface SlotRegistration {
  readonly name: string
  readonly id?: string
  readonly key?: string
  /** A list entry's title (the 0.1.5 panel list). */
  readonly label?: string
  readonly order?: number
  readonly priority?: number
  readonly select?: (owner: TurnTailOwner) => unknown
  readonly inject?: (sessionId?: string) => Record<string, unknown>
}

/** The slots service. */
export interface SlotsService {
  inject(name: string, register: () => unknown): void
  register(registration: SlotRegistration, component: (props: Record<string, unknown>) => ReactNode): unknown
}

/** An observable value for a slot's `hooks` compartment: `useX(selector)` in the component. */
export interface Source<T> {
  getSnapshot(): T
  subscribe(listener: () => void): () => void
}

/** The client root context, as the plugin uses it. */
export interface ClientContext {
  readonly slots: SlotsService
  inject(services: readonly string[], callback: (ctx: ClientContext & Record<string, unknown>) => void): void
  get(name: string): unknown
  effect(execute: () => () => void, label?: string): unknown
}

/** One session event, as the conversation engine hands it to a definition. */
export interface SessionEventLike {
  readonly type: string
  readonly seq: number
  /** Surface events say whether they append to the conversation or replace an earlier range. */
  readonly surfaceOp?: string
  readonly data: Record<string, unknown>
}

/** The turn a turn-tail entry is asked about. */
export interface TurnTailOwner {
  readonly seq: number
  readonly turn: {
    readonly turn: number
    readonly status: 'open' | 'closed' | 'unknown'
    readonly data: { get(key: string): unknown }
  }
  readonly openFile?: (path: string) => void
}

/** The settings scope of one namespace (client side). */
export interface SettingsScopeHandle
  extends Source<{
    status?: string
    value?: Record<string, unknown>
    user?: Record<string, unknown>
    revision?: number
    writable?: boolean
  }> {
  set(field: string, value: unknown): Promise<void>
  unset(field: string): Promise<void>
}

/** The settings describe mirror (schemas of every namespace). */
export interface SettingsDescribe
  extends Source<{ view?: { namespaces: readonly { ns: string; schema: unknown; value: unknown }[] } }> {
  ensure(): Promise<unknown>
}

/** The settings scope service. */
export interface SettingsScopeService {
  bind(options: { namespace: string }): SettingsScopeHandle
  describe(): SettingsDescribe
}

/** The conversation event registry: folds session events into per-turn data. */
export interface ConversationEventsService {
  register(definition: unknown): unknown
}
