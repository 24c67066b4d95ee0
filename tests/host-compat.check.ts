/**
 * Compile-time proof that the plugin's narrow host views (src/host/ports.ts) fit the real DSH rc.8 declarations.
 * Type-checked by `npm test` (tests/tsconfig.json); it has no runtime content.
 */
import type { Context, Events } from '@deepseek-ai/cordis'
import type { Agent } from '@deepseek-ai/dsh-agent'
import type { UserMessage } from '@deepseek-ai/dsh-llm'
import type { Session, SessionStore } from '@deepseek-ai/dsh-session'
import type { SessionQueryEngine } from '@deepseek-ai/dsh-session-query'
import type { SettingsScope } from '@deepseek-ai/dsh-settings'
import type { PromptContext } from '@deepseek-ai/dsh-system-prompt'
import type { ToolDefinition, ToolRunContext } from '@deepseek-ai/dsh-tools'
import type { Config } from '../src/config.ts'
import type { directoryContext } from '../src/context-hooks.ts'
import type { AgentDefaultModelConfig } from '@deepseek-ai/dsh-agent-default-model'
import type {
  AgentView,
  DefaultModelView,
  ExtractionMessage,
  ExtractSessionView,
  LiveSessionsView,
  LlmView,
  LoggerView,
  NoticeMessage,
  PreStepPayload,
  RecallMessage,
  SessionQueryView,
  SessionView,
  SettingsScopeView,
  ToolCall,
  ToolSpec,
} from '../src/host/ports.ts'

type Assert<T extends true> = T
type Fits<A, B> = [A] extends [B] ? true : false

/** A tool built by the plugin is a host ToolDefinition. */
export type ToolSpecIsToolDefinition = Assert<Fits<ToolSpec, ToolDefinition>>
/** What the host passes to execute fits what the tools read. */
export type RunContextFitsToolCall = Assert<Fits<ToolRunContext, ToolCall>>
/** A live agent and its session fit the views the tools and notice read. */
export type AgentFitsView = Assert<Fits<Agent, AgentView>>
export type SessionFitsView = Assert<Fits<Session, SessionView>>
/** The real pre-step payload fits the notice's view of it. */
export type PreStepPayloadFits = Assert<Fits<Parameters<Events['agent/pre-step']>[0], PreStepPayload>>
/** The notice is a host user message apart from its branded id. */
export type NoticeIsUserMessage = Assert<Fits<Omit<NoticeMessage, 'id'>, Omit<UserMessage, 'id'>>>
/** The recall block is a host user message of the `recall` form apart from its branded id. */
export type RecallIsUserMessage = Assert<Fits<Omit<RecallMessage, 'id'>, Omit<UserMessage, 'id'>>>
/** The directory registration is a host PromptContext. */
export type DirectoryIsPromptContext = Assert<Fits<ReturnType<typeof directoryContext>, PromptContext>>
/** The settings scope and logger fit the runtime's views. */
export type SettingsScopeFits = Assert<Fits<SettingsScope<Config>, SettingsScopeView<Config>>>
export type LoggerFits = Assert<Fits<ReturnType<Context['logger']>, LoggerView>>
/** Extraction reads a live session's route, streams one text-only call, and falls back to the default model. */
export type SessionFitsExtractView = Assert<Fits<Session, ExtractSessionView>>
export type LlmFitsView = Assert<Fits<Context['llm'], LlmView>>
/** The extraction call's message is a host user message apart from its branded id. */
export type ExtractionMessageIsUserMessage = Assert<Fits<Omit<ExtractionMessage, 'id'>, Omit<UserMessage, 'id'>>>
export type DefaultModelFits = Assert<Fits<AgentDefaultModelConfig, DefaultModelView>>
/** The session/event listener hands over a session and one event. */
export type SessionEventFits = Assert<
  Fits<
    Parameters<Events['session/event']>,
    [ExtractSessionView, { readonly type: string; readonly seq: number; readonly data: unknown }]
  >
>
/** A parked range's retry finds its session live in the store, or reads its persisted log through the query service. */
export type SessionStoreFits = Assert<Fits<SessionStore, LiveSessionsView>>
export type SessionQueryFits = Assert<Fits<SessionQueryEngine, SessionQueryView>>
