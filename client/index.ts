/**
 * dsh-fact-memory's browser half. It only wires: a sidebar entry that opens the Fact memory page (a full panel in
 * the frame-wide overlay on rc.8), the page's link in the URL's hash, the toast stack, the conversation drawer, the
 * session header button with its badge and mark, the turn-tail card, and the settings card. Only `slots` is required; every other service is
 * reached through a nested inject so a host without it still boots, and each piece is guarded so a failure here
 * never blanks the host UI.
 */
import React from 'react'
import { AppState } from './app-state.ts'
import { FmConflicts } from './components/fm-conflicts.component.ts'
import { FmEntityPanel } from './components/fm-entity-panel.component.ts'
import { FmExport } from './components/fm-export.component.ts'
import { FmExtraction } from './components/fm-extraction.component.ts'
import { FmForget } from './components/fm-forget.component.ts'
import { FmAddFact } from './components/fm-add-fact.component.ts'
import { FmImportFile } from './components/fm-import-file.component.ts'
import { FmGraph } from './components/fm-graph.component.ts'
import { FmGraphPreview } from './components/fm-graph-preview.component.ts'
import { FmLibrary } from './components/fm-library.component.ts'
import { FmPinButton } from './components/fm-pin-button.component.ts'
import { FmPage } from './components/fm-page.component.ts'
import { FmProposals } from './components/fm-proposals.component.ts'
import { FmQuestionHits } from './components/fm-question-hits.component.ts'
import { FmSettingsCard } from './components/fm-settings-card.component.ts'
import { FmSyncPanel } from './components/fm-sync-panel.component.ts'
import { FmTeamMemory } from './components/fm-team-memory.component.ts'
import { FmSvgTree } from './components/fm-svg-tree.component.ts'
import type { ClientContext, ConversationEventsService, SettingsScopeService, Source, TurnTailOwner } from './host.ts'
import {
  conversationDrawer,
  headerButton,
  mainPanel,
  pageOverlay,
  panelIcon,
  sidebarButton,
  toastStack,
  turnTailCard,
  type TurnMatch,
} from './slot-views.ts'
import { defineOnce, litHost } from './react-bridge.ts'
import { factTurnDefinition, TURN_DATA_KEY, type FactTurnData } from './turn-data.ts'
import { followPageLink } from './page-link-sync.ts'

/** The settings namespace (the plugin name). */
const NAMESPACE = 'dsh-fact-memory'
/** The key of the page where a host has application panels (`main` + `sidebar.panellist`). */
const PANEL_KEY = 'fact-memory'

/** Services the entry cannot run without; everything else is optional. */
export const inject = ['slots']

/**
 * Apply the client plugin.
 * @param ctx - the client root context.
 */
export function apply(ctx: ClientContext): void {
  defineOnce('fm-page', FmPage)
  defineOnce('fm-library', FmLibrary)
  defineOnce('fm-entity-panel', FmEntityPanel)
  defineOnce('fm-pin-button', FmPinButton)
  defineOnce('fm-graph', FmGraph)
  defineOnce('fm-svg-tree', FmSvgTree)
  defineOnce('fm-proposals', FmProposals)
  defineOnce('fm-question-hits', FmQuestionHits)
  defineOnce('fm-conflicts', FmConflicts)
  defineOnce('fm-extraction', FmExtraction)
  defineOnce('fm-settings-card', FmSettingsCard)
  defineOnce('fm-sync-panel', FmSyncPanel)
  defineOnce('fm-team-memory', FmTeamMemory)
  defineOnce('fm-graph-preview', FmGraphPreview)
  defineOnce('fm-forget', FmForget)
  defineOnce('fm-add-fact', FmAddFact)
  defineOnce('fm-import-file', FmImportFile)
  defineOnce('fm-export', FmExport)

  const app = new AppState()
  const LitHost = litHost(React)
  ctx.effect(() => {
    void app.refreshSummary()
    const poll = setInterval(() => {
      if (document.visibilityState === 'visible') void app.refreshSummary()
    }, 30_000)
    return () => {
      clearInterval(poll)
      app.dispose()
    }
  }, 'fact-memory: badge summary')
  ctx.effect(() => followPageLink(app), 'fact-memory: page link')

  guard('sidebar entry', () =>
    ctx.slots.inject('sidebar.footer.action', () =>
      ctx.slots.register(
        {
          name: 'sidebar.footer.action',
          id: 'dsh-fact-memory',
          order: 40,
          inject: () => ({
            hooks: { page: app.page, summary: app.summary },
            toggle: () => (app.page.getSnapshot().open ? app.close() : app.open()),
          }),
        },
        sidebarButton(React),
      ),
    ),
  )

  // Hosts of the 0.1.5 line have application panels: the same page registers there too (rc.8 never declares these
  // slots, so the injects simply wait). The page does not depend on the seat that hosts it.
  guard('main panel', () =>
    ctx.slots.inject('main', () =>
      ctx.slots.register(
        {
          name: 'main',
          key: PANEL_KEY,
          inject: () => ({ app, LitHost }),
        },
        mainPanel(React),
      ),
    ),
  )
  guard('panel list entry', () =>
    ctx.slots.inject('sidebar.panellist', () =>
      ctx.slots.register(
        {
          name: 'sidebar.panellist',
          id: PANEL_KEY,
          label: 'Fact memory',
          order: 40,
          inject: () => ({ hooks: { summary: app.summary } }),
        },
        panelIcon(React),
      ),
    ),
  )

  guard('page and toasts', () =>
    ctx.slots.inject('shell.overlay', function* () {
      yield ctx.slots.register(
        {
          name: 'shell.overlay',
          id: 'dsh-fact-memory-page',
          inject: () => ({ hooks: { page: app.page }, app, LitHost }),
        },
        pageOverlay(React),
      )
      yield ctx.slots.register(
        {
          name: 'shell.overlay',
          id: 'dsh-fact-memory-drawer',
          inject: () => ({ hooks: { drawer: app.drawer, sessions: app.sessions }, app }),
        },
        conversationDrawer(React),
      )
      yield ctx.slots.register(
        {
          name: 'shell.overlay',
          id: 'dsh-fact-memory-toasts',
          inject: () => ({ hooks: { toasts: app.toasts }, app }),
        },
        toastStack(React),
      )
    }),
  )

  guard('session header', () =>
    ctx.slots.inject('conversation.session.header.utilities', () =>
      ctx.slots.register(
        {
          name: 'conversation.session.header.utilities',
          id: 'dsh-fact-memory',
          order: 90,
          inject: (sessionId) => {
            if (sessionId !== undefined) void app.refreshSession(sessionId)
            return { hooks: { summary: app.summary, sessions: app.sessions }, app, ownSessionId: sessionId }
          },
        },
        headerButton(React),
      ),
    ),
  )

  ctx.inject(['conversationEvents'], (inner) =>
    guard('turn card', () => {
      const events = inner['conversationEvents'] as ConversationEventsService
      events.register(factTurnDefinition)
      ctx.slots.inject('conversation.chat.turnTail', () =>
        ctx.slots.register(
          {
            name: 'conversation.chat.turnTail',
            // Ahead of the host's produced-files card, but only on turns that wrote facts. With automatic capture on, the
            // store may hold facts of any closed turn that none of its memory_write calls wrote (the rules anchored its user
            // message, or extraction reads it after it ends), and the host asks only once, when the turn closes: the card
            // then holds the seat on every closed turn, counts from the store, and shows the turn's files too. Per-turn
            // recall is logged in the store alone (its message has no turn of its own in the session log), so with recall on
            // the card holds every closed turn the same way.
            priority: -10,
            select: (owner: TurnTailOwner): TurnMatch | null => {
              const data = owner.turn.data.get(TURN_DATA_KEY) as FactTurnData | undefined
              const wrote = data?.wrote ?? 0
              const { autoCapture, autoExtract, recall } = app.summary.getSnapshot()
              if (owner.turn.status !== 'closed' || (wrote === 0 && !autoCapture && !autoExtract && !recall))
                return null
              const produced =
                (owner.turn.data.get('deliverables') as { produced?: readonly { path: string }[] } | undefined)
                  ?.produced ?? []
              return {
                turn: owner.turn.turn,
                wrote,
                produced: produced.map((entry) => entry.path),
                openFile: owner.openFile ?? null,
              }
            },
            inject: (sessionId) => {
              if (sessionId !== undefined) void app.refreshSession(sessionId)
              return { hooks: { sessions: app.sessions }, app, ownSessionId: sessionId }
            },
          },
          turnTailCard(React),
        ),
      )
    }),
  )

  ctx.inject(['settingsScope'], (inner) =>
    guard('settings card', () => {
      const settings = inner['settingsScope'] as SettingsScopeService
      ctx.slots.inject('settings.plugin.item', () =>
        ctx.slots.register(
          {
            name: 'settings.plugin.item',
            key: NAMESPACE,
            inject: () => {
              const scope = settings.bind({ namespace: NAMESPACE })
              const describe = settings.describe()
              void describe.ensure()
              return {
                hooks: { scope, describe } as Record<string, Source<unknown>>,
                setField: (field: string, value: unknown) => scope.set(field, value),
              }
            },
          },
          (props) => {
            const useScope = props['useScope'] as (
              select: (snapshot: { value?: Record<string, unknown> }) => unknown,
            ) => Record<string, unknown> | undefined
            const useDescribe = props['useDescribe'] as (
              select: (snapshot: { view?: { namespaces: readonly { ns: string; schema: unknown }[] } }) => unknown,
            ) => unknown
            const value = useScope((snapshot) => snapshot.value)
            const schema = useDescribe(
              (snapshot) => snapshot.view?.namespaces.find((entry) => entry.ns === NAMESPACE)?.schema,
            )
            return React.createElement(LitHost, {
              tag: 'fm-settings-card',
              props: { app, schema, value, onfield: props['setField'] },
              style: {},
            })
          },
        ),
      )
    }),
  )
}

/** Run one registration so that its failure is logged and contained instead of failing the whole client. */
function guard(what: string, register: () => void): void {
  try {
    register()
  } catch (error) {
    console.error(`dsh-fact-memory: ${what} could not be registered`, error)
  }
}
