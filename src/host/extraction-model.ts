/**
 * Choose the extraction model from the configuration and the host: `host` reuses the session's own route (or the
 * default model outside a session) through the host's LLM service; `custom` is the configured OpenAI-compatible
 * endpoint, its key read from the host credential store and then the environment.
 */
import type { CredentialProvider } from '@deepseek-ai/dsh-credentials'
import type { ResolvedConfig } from '../config.ts'
import { customModel, hostModel, type ExtractionModel } from './model-client.ts'
import { resolveCredential } from './credentials.ts'
import type { DefaultModelView, ExtractSessionView, LlmView } from './ports.ts'

/** The host services the choice reads, each possibly absent. */
export interface ModelHost {
  readonly llm: () => LlmView | undefined
  readonly defaultModel: () => DefaultModelView | undefined
  readonly credentials: () => CredentialProvider | undefined
  readonly fetch: typeof fetch
}

/**
 * Build the resolver the capture service calls before each pass.
 * @param host - lazy views of the host services.
 * @returns the resolver.
 */
export function extractionModelResolver(
  host: ModelHost,
): (
  session: ExtractSessionView | undefined,
  config: ResolvedConfig,
) => Promise<ExtractionModel | { readonly unavailable: string }> {
  return async (session, config) => {
    if (config.llmSource === 'custom') {
      if (config.llmBaseUrl.trim() === '' || config.llmModel.trim() === '') {
        return { unavailable: 'llmSource is custom, but llmBaseUrl or llmModel is empty' }
      }
      const apiKey = await resolveCredential(host.credentials(), config.llmApiKeyEnv)
      return customModel(
        { baseUrl: config.llmBaseUrl.trim(), model: config.llmModel.trim(), apiKey },
        host.fetch,
        config.extractThinking,
      )
    }
    const llm = host.llm()
    if (llm === undefined) return { unavailable: 'the host offers no model service' }
    const route = session?.requestHeader()?.config ?? safeSelection(host.defaultModel())
    if (route === undefined)
      return { unavailable: 'no model route: the session has not called a model yet and no default model is set' }
    return hostModel(llm, { provider: route.provider, model: route.model }, config.extractThinking)
  }
}

function safeSelection(defaultModel: DefaultModelView | undefined): { provider: string; model: string } | undefined {
  try {
    return defaultModel?.currentSelection()
  } catch {
    return undefined
  }
}
