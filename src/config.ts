/** The plugin's configuration: one schemastery declaration (read by the Loader and the settings card) and its resolution. */
import { isAbsolute, join, resolve } from 'node:path'
import Schema from '@deepseek-ai/schemastery'
import { syncSettingsSchema, type SyncConfig } from './sync/sync-settings.ts'

/** Every configuration key of dsh-fact-memory, with its default in the field's JSDoc (the sync keys in sync-settings.ts). */
export interface Config extends SyncConfig {
  /** Master switch for this store's tools, directory, extraction and time maintenance. Default `true`. */
  enabled: boolean
  /** Store directory; empty means `<DSH_HOME>/fact-memory`. Default `''`. */
  dataDir: string
  /** Put the budgeted directory into every request's dynamic context. Default `true`. */
  injectDirectory: boolean
  /** One notice per session (first turn, or a turn that mentions memory). Default `true`. */
  injectReminder: boolean
  /** Per-turn recall budget in tokens at 2 characters per token; 0 turns per-turn recall off. Default `600`. */
  recallBudgetTokens: number
  /** Rule-based capture of user statements. Default `false`. */
  autoCapture: boolean
  /** Model extraction after every turn. Default `false`. */
  autoExtract: boolean
  /** Refuse values that look like a credential; off stores them as sensitive, never model-visible. Default `true`. */
  refuseCredentials: boolean
  /** Let sensitive personal data into the directory and model-facing search. Default `false`. */
  sensitiveModelVisible: boolean
  /** Default number of matching facts memory_search answers with, 1-10. Default `5`. */
  searchLimit: number
  /** Take a consistent SQLite backup before each export. Default `true`. */
  backupBeforeExport: boolean
  /** Take the same backup before "Clear everything". Default `true`. */
  backupBeforeWipe: boolean
  /** Extraction model: `host` reuses the session's route, `custom` an OpenAI-compatible endpoint. Default `'host'`. */
  llmSource: 'host' | 'custom'
  /** Custom extraction endpoint base URL. Default `''`. */
  llmBaseUrl: string
  /** Custom extraction model id. Default `''`. */
  llmModel: string
  /** Credential reference for the custom extraction endpoint. Default `'FACT_MEMORY_LLM_KEY'`. */
  llmApiKeyEnv: string
  /** Read the assistant's replies during extraction too. Default `true`. */
  extractIncludeAssistant: boolean
  /** Embedding provider: `none` or `openai`. Default `'none'`. */
  embeddingSource: 'none' | 'openai'
  /** Embedding endpoint base URL. Default `''`. */
  embeddingBaseUrl: string
  /** Embedding model id. Default `''`. */
  embeddingModel: string
  /** Credential reference for the embedding endpoint. Default `'FACT_MEMORY_EMBEDDING_KEY'`. */
  embeddingApiKeyEnv: string
  /** Rerank provider: `none` or `json`. Default `'none'`. */
  rerankSource: 'none' | 'json'
  /** Rerank endpoint base URL. Default `''`. */
  rerankBaseUrl: string
  /** Rerank model id. Default `''`. */
  rerankModel: string
  /** Credential reference for the rerank endpoint. Default `'FACT_MEMORY_RERANK_KEY'`. */
  rerankApiKeyEnv: string
  /** Directory budget in tokens at 2 characters per token. Default `800`. */
  directoryBudget: number
  /** Notice budget in tokens at 2 characters per token; 0 injects no notice. Default `300`. */
  reminderBudgetTokens: number
  /** Rendered memory_search budget in tokens at 2 characters per token. Default `1200`. */
  searchBudgetTokens: number
  /** Whole-query deadline in milliseconds. Default `2500`. */
  queryTimeoutMs: number
  /** IANA zone for displayed dates; empty means the host's zone. Default `''`. */
  storeTimezone: string
  /**
   * Backups to keep, export and wipe ones together: the newest by the time taken stay; 0 keeps all. The copies
   * migrations leave beside the store are kept to the same number, counted apart. Default `7`.
   */
  backupKeep: number
  /** Interval of the scheduled/expired maintenance in ms; 0 disables the timer. Default `60000`. */
  advanceIntervalMs: number
  /** Expected embedding dimension; 0 accepts what the provider returns. Default `0`. */
  embeddingDim: number
  /** Declared rerank score range. Default `'unit_interval'`. */
  rerankScoreMode: 'unit_interval' | 'logit' | 'native'
  /** Merge window after a turn ends, in ms. Default `5000`. */
  extractDelayMs: number
  /** Below this confidence an extracted candidate becomes a proposal. Default `0.6`. */
  extractConfidenceMin: number
  /** Characters per extraction segment. Default `24000`. */
  extractMaxChars: number
  /** Let the extraction model think. Default `false`. */
  extractThinking: boolean
  /** One extra model call to consolidate repeating or disagreeing segments. Default `true`. */
  extractMerge: boolean
  /** Segments one extraction pass covers, 1-4. Default `2`. */
  extractChunksPerPass: number
  /** Signal-free turns kept before the model reads them anyway; 0 = prefilter only. Default `3`. */
  extractFallbackTurns: number
  /** Signal-free text this long goes to the model at once. Default `800`. */
  extractFallbackChars: number
  /** Wait before the first retry of a failed extraction pass in ms; the second and third wait 5 and 30 times as long. Default `60000`. */
  extractRetryMs: number
  /** Vector rebuild interval in ms; 0 keeps it manual. Default `600000`. */
  vectorIndexIntervalMs: number
  /** Background near-duplicate review. Default `true`. */
  autoConsolidate: boolean
  /** Near-duplicate sweep interval in ms; 0 keeps it to the button and route. Default `21600000`. */
  consolidateIntervalMs: number
  /** Vector cosine worth asking the model about. Default `0.85`. */
  consolidateCosineFloor: number
  /** Model calls one sweep may spend. Default `8`. */
  consolidateMaxPairs: number
  /** Background health check. Default `true`. */
  autoAudit: boolean
  /** Health check interval in ms; 0 keeps it to the button and route. Default `21600000`. */
  auditIntervalMs: number
  /** Most facts one turn's recall block lists, 1-20. Default `8`. */
  recallMaxFacts: number
  /** Relevance floor of per-turn recall, 0-1 (the weighted share of the message's telling words a fact carries). Default `0.4`. */
  recallMinScore: number
  /** Deadline of one per-turn recall in ms, the semantic hops included; the lexical answer stands when they are slow. Default `600`. */
  recallTimeoutMs: number
}

const masterSwitch = Schema.object({
  enabled: Schema.boolean()
    .default(true)
    .description("Master switch for this store's tools, directory, extraction and time maintenance."),
})

const everyday = Schema.object({
  dataDir: Schema.string()
    .default('')
    .description(
      'Store directory; empty means <DSH_HOME>/fact-memory. Pointing it elsewhere switches to another store.',
    ),
  injectDirectory: Schema.boolean()
    .default(true)
    .description('Put the budgeted directory of current facts into every request.'),
  injectReminder: Schema.boolean()
    .default(true)
    .description('One short notice per session naming the memory tools (first turn, or a turn that mentions memory).'),
  recallBudgetTokens: Schema.natural()
    .max(10_000)
    .default(600)
    .description(
      'Per-turn recall: with each new user message, the stored facts that match it and the directory does not show ride along with that message, within this many tokens (2 characters per token); 0 turns it off.',
    ),
  autoCapture: Schema.boolean()
    .default(false)
    .description('Rule-based capture of user statements. Credentials and personal data are still skipped.'),
  autoExtract: Schema.boolean()
    .default(false)
    .description('Extract facts with a model after every turn; each extraction is one model call.'),
  refuseCredentials: Schema.boolean()
    .default(true)
    .description(
      'Refuse values that look like a credential. Off: stored as a sensitive fact, still never shown to the model.',
    ),
  sensitiveModelVisible: Schema.boolean()
    .default(false)
    .description(
      'Let sensitive personal data (phone, ID, email) into the directory and model-facing search. Credentials stay hidden.',
    ),
  searchLimit: Schema.natural()
    .min(1)
    .max(10)
    .default(5)
    .description('Default number of matching facts memory_search answers with (1-10).'),
  backupBeforeExport: Schema.boolean()
    .default(true)
    .description('Copy a consistent SQLite backup into <dataDir>/backups before each export.'),
  backupBeforeWipe: Schema.boolean()
    .default(true)
    .description('Take the same backup before "Clear everything"; off makes the wipe immediate.'),
  llmSource: Schema.union(['host', 'custom'] as const)
    .default('host')
    .description("Extraction model: host reuses the session's model; custom sends the text to your endpoint."),
  llmBaseUrl: Schema.string()
    .default('')
    .description('custom only: OpenAI-compatible base URL; requests go to <base>/chat/completions.'),
  llmModel: Schema.string().default('').description('custom only: model id.'),
  llmApiKeyEnv: Schema.string()
    .role('credential-ref')
    .default('FACT_MEMORY_LLM_KEY')
    .description('Credential name of the extraction endpoint key (host credential store, then environment).'),
  extractIncludeAssistant: Schema.boolean()
    .default(true)
    .description("Read the assistant's replies during extraction, not only the user's words."),
  embeddingSource: Schema.union(['none', 'openai'] as const)
    .default('none')
    .description(
      'Embedding provider: none, or an OpenAI-compatible POST <base>/embeddings. The text of non-sensitive facts and of queries is sent there.',
    ),
  embeddingBaseUrl: Schema.string()
    .default('')
    .description('Embedding endpoint base URL, e.g. https://api.example.com/v1.'),
  embeddingModel: Schema.string().default('').description('Embedding model id.'),
  embeddingApiKeyEnv: Schema.string()
    .role('credential-ref')
    .default('FACT_MEMORY_EMBEDDING_KEY')
    .description('Credential name of the embedding endpoint key (host credential store, then environment).'),
  rerankSource: Schema.union(['none', 'json'] as const)
    .default('none')
    .description(
      'Rerank provider: none, or a Cohere/Jina style POST <base>/rerank. It orders search results; it filters them only once calibrated.',
    ),
  rerankBaseUrl: Schema.string().default('').description('Rerank endpoint base URL.'),
  rerankModel: Schema.string().default('').description('Rerank model id.'),
  rerankApiKeyEnv: Schema.string()
    .role('credential-ref')
    .default('FACT_MEMORY_RERANK_KEY')
    .description('Credential name of the rerank endpoint key (host credential store, then environment).'),
})

const advanced = Schema.object({
  directoryBudget: Schema.natural()
    .max(100_000)
    .default(800)
    .description('Directory budget in tokens (2 characters per token); overflow is cut with a count.'),
  reminderBudgetTokens: Schema.natural()
    .max(10_000)
    .default(300)
    .description('Notice budget in tokens (2 characters per token); 0 injects no notice.'),
  searchBudgetTokens: Schema.natural()
    .min(300)
    .max(100_000)
    .default(1200)
    .description(
      'Budget of one rendered memory_search answer in tokens (2 characters per token); matching facts come first, history and counts fill what is left.',
    ),
  queryTimeoutMs: Schema.natural()
    .min(50)
    .max(60_000)
    .default(2500)
    .description('Whole-query deadline of memory_search in milliseconds.'),
  storeTimezone: Schema.string()
    .default('')
    .description("IANA time zone for displayed dates; empty means the host's zone. Stored dates stay ISO UTC."),
  backupKeep: Schema.natural()
    .default(7)
    .description(
      'Backups to keep in <dataDir>/backups (export and wipe together), oldest taken deleted first, and as many migration copies beside the store; 0 keeps all.',
    ),
  advanceIntervalMs: Schema.natural()
    .default(60_000)
    .description(
      'How often scheduled facts are promoted and expired ones retired; 0 disables the timer (opening the store always advances once).',
    ),
  embeddingDim: Schema.natural()
    .default(0)
    .description(
      'Expected vector dimension; 0 accepts what the provider returns. Changing it retires the vectors built before.',
    ),
  rerankScoreMode: Schema.union(['unit_interval', 'logit', 'native'] as const)
    .default('unit_interval')
    .description(
      'Declared rerank score range (0-1, logit or native); a score outside it invalidates the whole rerank. Changing it requires recalibration.',
    ),
  extractDelayMs: Schema.natural().default(5000).description('Merge window after a turn ends, in ms.'),
  extractConfidenceMin: Schema.number()
    .min(0)
    .max(1)
    .default(0.6)
    .description('Below this confidence an extracted candidate becomes a proposal.'),
  extractMaxChars: Schema.natural().min(1000).default(24_000).description('Characters per extraction segment.'),
  extractThinking: Schema.boolean().default(false).description('Let the extraction model think before answering.'),
  extractMerge: Schema.boolean()
    .default(true)
    .description('One extra model call to consolidate segments that repeat or disagree.'),
  extractChunksPerPass: Schema.natural().min(1).max(4).default(2).description('Segments one pass covers (1-4).'),
  extractFallbackTurns: Schema.natural()
    .default(3)
    .description('Signal-free turns kept before the model reads them anyway; 0 = prefilter only.'),
  extractFallbackChars: Schema.natural()
    .default(800)
    .description('Signal-free text this long goes to the model at once.'),
  extractRetryMs: Schema.natural()
    .min(100)
    .default(60_000)
    .description(
      'Wait before the first retry of a failed extraction pass, in ms; the second and third wait 5 and 30 times as long, then the range is parked.',
    ),
  vectorIndexIntervalMs: Schema.natural()
    .default(600_000)
    .description(
      'Vector sweep interval in ms (new or changed facts get vectors; a write asks for one at once); 0 keeps it to Rebuild vectors.',
    ),
  autoConsolidate: Schema.boolean()
    .default(true)
    .description('Look for near-duplicate facts in the background; off also refuses the button and the route.'),
  consolidateIntervalMs: Schema.natural()
    .default(21_600_000)
    .description('Near-duplicate sweep interval in ms; 0 keeps it to the button and the route.'),
  consolidateCosineFloor: Schema.number()
    .min(0)
    .max(1)
    .default(0.85)
    .description('Vector cosine at or above which a pair is worth asking the model about (the vector leg).'),
  consolidateMaxPairs: Schema.natural()
    .default(8)
    .description('Model calls one sweep may spend (triple when asked for with the button).'),
  autoAudit: Schema.boolean()
    .default(true)
    .description('Audit the library in the background (the health check); off, the button and the route refuse too.'),
  auditIntervalMs: Schema.natural()
    .default(21_600_000)
    .description('Health check interval in ms; 0 keeps it to the button and the route.'),
  recallMaxFacts: Schema.natural().min(1).max(20).default(8).description("Most facts one turn's recall lists (1-20)."),
  recallMinScore: Schema.number()
    .min(0)
    .max(1)
    .default(0.4)
    .description(
      'Relevance floor of per-turn recall (0-1): a message is about the library when it names a stored subject or one fact carries this weighted share of its telling words; each fact recalled must carry half of it. Higher recalls less and more surely.',
    ),
  recallTimeoutMs: Schema.natural()
    .min(50)
    .max(10_000)
    .default(600)
    .description(
      'Deadline of one per-turn recall in ms, embedding and rerank included; when they are slow the lexical answer stands.',
    ),
})
  .description('Advanced')
  .collapse()

/** The schemastery declaration the Loader validates against and the settings service serves. */
export const Config: Schema<Config> = Schema.intersect([
  masterSwitch,
  everyday,
  syncSettingsSchema,
  advanced,
]) as unknown as Schema<Config>

/** The configuration the runtime works with: every field present, the data directory made absolute. */
export interface ResolvedConfig extends Readonly<Config> {
  /** Absolute store directory. */
  readonly resolvedDataDir: string
  /** IANA zone used for display. */
  readonly displayTimeZone: string
}

/** Where the plugin looks for its home when `dataDir` is empty. */
export interface HomeLocator {
  /** `process.env.DSH_HOME` at call time, if set. */
  readonly dshHome: string | undefined
  /** The user's home directory. */
  readonly userHome: string
}

/**
 * Resolve a validated config into the runtime form.
 * @param config - a config the Loader or the settings service already validated.
 * @param home - where DSH_HOME and the user's home are, read at call time by the caller.
 * @returns the resolved config; a relative `dataDir` is taken from the DSH home, an unknown `storeTimezone` falls
 *   back to the host zone.
 */
export function resolveConfig(config: Config, home: HomeLocator): ResolvedConfig {
  const dshHome =
    home.dshHome !== undefined && home.dshHome !== '' ? resolve(home.dshHome) : join(home.userHome, '.dsh')
  const resolvedDataDir =
    config.dataDir === ''
      ? join(dshHome, 'fact-memory')
      : isAbsolute(config.dataDir)
        ? config.dataDir
        : resolve(dshHome, config.dataDir)
  return Object.freeze({ ...config, resolvedDataDir, displayTimeZone: resolveTimeZone(config.storeTimezone) })
}

/**
 * Pick the display zone: the configured IANA name when the runtime knows it, else the host's zone.
 * @param zone - the configured zone, possibly empty.
 * @returns an IANA zone name accepted by Intl.
 */
export function resolveTimeZone(zone: string): string {
  const host = Intl.DateTimeFormat().resolvedOptions().timeZone
  if (zone === '') return host
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return zone
  } catch {
    return host
  }
}

/**
 * Validate a partial configuration and fill every default, as the Loader does.
 * @param overrides - the keys to set; the rest take their defaults.
 * @returns the complete, validated configuration.
 * @throws when a value is out of range or of the wrong type.
 */
export function configWith(overrides: Partial<Config>): Config {
  return Config(overrides as Config)
}
