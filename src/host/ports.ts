/**
 * Narrow structural views of the DSH host services this plugin uses. Nothing here is imported from the host at
 * run time; `tests/host-compat.check.ts` proves at compile time that the real rc.8 types fit these shapes.
 */

/** A text content block. */
export interface TextBlock {
  readonly type: 'text'
  readonly text: string
}

/** The subset of a live session the plugin reads. */
export interface SessionView {
  readonly id: string
  readonly header: {
    readonly origin?: 'subagent'
    readonly delegationDepth?: number
    readonly cwd?: string
    readonly parentSession?: string
  }
  readonly events: readonly SessionEventView[]
}

/** A live session as extraction reads it: also the route its requests last used. */
export interface ExtractSessionView extends SessionView {
  requestHeader(): { readonly config: { readonly provider: string; readonly model: string } } | undefined
}

/** The host's live session store (`ctx.sessions`), as a retry looks a session up. */
export interface LiveSessionsView {
  get(id: string): ExtractSessionView | undefined
}

/** The host's session query service (`ctx.sessionQuery`), as a retry reads a session that is no longer live. */
export interface SessionQueryView {
  readSession(id: string): Promise<{
    readonly session: SessionView['header'] & { readonly id: string }
    readonly events: readonly SessionEventView[]
  }>
}

/** A provider and model. */
export interface ModelRoute {
  readonly provider: string
  readonly model: string
}

/** One chunk of a model stream, as extraction reads it. */
export interface StreamChunkView {
  readonly type: string
  readonly text?: string
  readonly reason?: { readonly kind: string; readonly failure?: { readonly message?: string } }
}

/** The one user message an extraction call sends (a host user message apart from its branded id). */
export interface ExtractionMessage {
  readonly id: string
  readonly role: 'user'
  readonly content: TextBlock[]
  readonly source: { readonly kind: 'plugin'; readonly plugin: string }
}

/** The host's LLM service, as extraction uses it: one text-only stream (options typed as loosely as the host's). */
export interface LlmView {
  stream(options: {
    provider: string
    model: string
    system?: string
    messages: readonly object[]
    maxTokens?: number
    signal?: AbortSignal
    reasoningEffort?: string
    sessionId?: string
  }): AsyncIterable<StreamChunkView>
  resolveModelInfo?(
    provider: string,
    model: string,
    signal?: AbortSignal,
  ): Promise<{ readonly reasoning?: { readonly efforts: readonly { readonly id: string }[] } | undefined }>
}

/** The host's default model selection (the route outside a session). */
export interface DefaultModelView {
  currentSelection(): ModelRoute
}

/** A durable session event as the plugin reads it. */
export interface SessionEventView {
  readonly type: string
  readonly seq: number
  readonly data: unknown
}

/** The subset of a live agent the plugin reads. */
export interface AgentView {
  readonly id: string
  readonly session: SessionView
}

/** What a tool's execute receives. */
export interface ToolCall {
  readonly callId: string
  readonly signal: AbortSignal
  readonly agent?: AgentView | undefined
}

/** A model-facing tool, in the host's raw ToolDefinition shape. */
export interface ToolSpec {
  readonly name: string
  readonly description: string
  readonly parameters: Record<string, unknown>
  readonly output: {
    readonly schema: OutputSchema
    render(args: unknown, value: never): TextBlock[]
  }
  execute(args: unknown, exec: ToolCall): Promise<unknown>
  readonly timeoutMs?: number
  isConcurrencySafe?(args: unknown): boolean
}

/** The enforced JSON Schema subset the host validates tool values with. */
export interface OutputSchema {
  readonly type?: 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null'
  readonly oneOf?: OutputSchema[]
  readonly properties?: Record<string, OutputSchema>
  readonly required?: string[]
  readonly additionalProperties?: boolean
  readonly items?: OutputSchema
  readonly enum?: (string | number | boolean | null)[]
  readonly description?: string
}

/** A user-role message the plugin injects (the pre-step notice). */
export interface NoticeMessage {
  readonly id: string & { readonly __brand?: 'MessageId' }
  readonly role: 'user'
  readonly content: TextBlock[]
  readonly source: {
    readonly kind: 'plugin'
    readonly plugin: string
    readonly form: 'notice'
    readonly summary: string
  }
}

/**
 * A user-role message carrying one turn's recalled facts: the host's `recall` form, material lifted out of earlier
 * conversations.
 */
export interface RecallMessage {
  readonly id: string & { readonly __brand?: 'MessageId' }
  readonly role: 'user'
  readonly content: TextBlock[]
  readonly source: { readonly kind: 'plugin'; readonly plugin: string; readonly form: 'recall' }
}

/** A live session's current model history (what the model sees now, after any compaction). */
export interface HistoryView {
  deriveMessages(): readonly { readonly id: string; readonly content: readonly unknown[]; readonly source: unknown }[]
}

/** The agent/pre-step payload. */
export interface PreStepPayload {
  readonly agent: { readonly id: string; readonly session: SessionView & HistoryView }
  readonly messages: readonly { readonly content: readonly unknown[]; readonly source: unknown }[]
  readonly turn: number
  readonly step: number
}

/** A settings namespace handle. */
export interface SettingsScopeView<T> {
  get(): T
  watch(callback: (next: T, prev: T) => void | Promise<void>): () => void
}

/** A logger with the levels the plugin uses. */
export interface LoggerView {
  info(format: string, ...args: unknown[]): void
  warn(format: string, ...args: unknown[]): void
}
