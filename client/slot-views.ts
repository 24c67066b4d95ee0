/**
 * The React components the client registers into host seats: the sidebar entry, the overlay that hosts the page,
 * the conversation drawer, the toast stack, the session header button (badge and mark) and the turn-tail card.
 * They render from the plugin's sources and call back into AppState; the page itself is the Lit <fm-page>.
 */
import type { AppState, DrawerState, PageState, Summary, Toast } from './app-state.ts'
import { callVerb } from './api.ts'
import { formatInstant, listedValue, seenNote, sensitiveMark, slotWords, STATUS_LABEL } from './format.ts'
import type { ReactLike, ReactNode } from './host.ts'
import { ICON_VIEW_BOX, PAUSE_ICON, RESUME_ICON, type IconShape } from './icons.ts'
import type { FactView, SessionCountsWire } from '../src/wire-types.ts'
import { turnCardParts } from './recall-words.ts'

type Use<T> = <R>(select: (snapshot: T) => R) => R
type Props = Record<string, unknown>

/** What the turn-tail `select` hands the card. */
export interface TurnMatch {
  readonly turn: number
  /** memory_write calls of the turn that stored something. */
  readonly wrote: number
  readonly produced: readonly string[]
  readonly openFile: ((path: string) => void) | null
}

const buttonStyle = {
  font: 'inherit',
  color: 'var(--dsw-alias-label-secondary)',
  background: 'transparent',
  border: 0,
  cursor: 'pointer',
  padding: '4px 8px',
  borderRadius: 8,
  display: 'inline-flex',
  alignItems: 'center',
  gap: 6,
}
/** Matches the host's own header buttons (Session log): a bordered pill. */
const pillStyle = {
  ...buttonStyle,
  color: 'var(--dsw-alias-label-primary)',
  border: '1px solid var(--dsw-alias-border-l2)',
  borderRadius: 16,
  height: 30,
  padding: '0 12px',
  fontSize: 13,
  boxSizing: 'border-box',
}
const chipStyle = {
  ...buttonStyle,
  color: 'var(--dsw-alias-label-secondary)',
  background: 'var(--dsw-alias-bg-module-platform)',
  borderRadius: 6,
  padding: '1px 8px',
  fontSize: 12,
}
const badgeStyle = {
  minWidth: 18,
  padding: '0 5px',
  borderRadius: 9,
  fontSize: 11,
  lineHeight: '18px',
  textAlign: 'center',
  // Dark text on the amber in both themes: the inverted label is white in the light theme, 2.2:1 on amber.
  background: 'var(--dsw-alias-state-warn-primary, #f59e0b)',
  color: 'var(--dsw-static-neutral-bluish-900, #1b1b1c)',
}

/** The sidebar foot entry that opens and closes the page. */
export function sidebarButton(react: ReactLike): (props: Props) => ReactNode {
  return (props) => {
    const open = (props['usePage'] as Use<PageState>)((state) => state.open)
    const badge = (props['useSummary'] as Use<Summary>)((state) => state.badge)
    const wide = props['wide'] !== false
    // In the collapsed rail the icon is centred in the rail's column, as the host's own icons are, and the badge
    // (at most "99+") sits on the icon's upper right instead of pushing it aside.
    const railStyle = wide ? {} : { position: 'relative', width: '100%', justifyContent: 'center', padding: '5px 0' }
    return react.createElement(
      'button',
      {
        type: 'button',
        'aria-label': 'Fact memory',
        'aria-pressed': open,
        'data-fm': 'sidebar-entry',
        onClick: props['toggle'],
        title: 'Fact memory',
        style: {
          ...buttonStyle,
          color: 'var(--dsw-alias-label-primary)',
          fontSize: 14,
          lineHeight: '22px',
          padding: '5px 8px',
          gap: 8,
          maxWidth: '100%',
          minWidth: 0,
          ...railStyle,
        },
      },
      memoryIcon(react, 16),
      // The label gives way (an ellipsis) to a narrow sidebar rather than being cut mid-letter.
      wide
        ? react.createElement(
            'span',
            { style: { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', minWidth: 0 } },
            'Fact memory',
          )
        : null,
      badge > 0
        ? react.createElement(
            'span',
            {
              style: wide
                ? { ...badgeStyle, flex: 'none' }
                : {
                    ...badgeStyle,
                    position: 'absolute',
                    top: -6,
                    left: '50%',
                    fontSize: 10,
                    lineHeight: '16px',
                    minWidth: 16,
                    padding: '0 3px',
                  },
            },
            wide || badge <= 99 ? String(badge) : '99+',
          )
        : null,
    )
  }
}

/** An icon of client/icons.ts in the text colour, hidden from assistive technology (the button carries the name). */
function reactIcon(react: ReactLike, shape: IconShape, size: number): ReactNode {
  return react.createElement(
    'svg',
    {
      width: size,
      height: size,
      viewBox: ICON_VIEW_BOX,
      'aria-hidden': true,
      fill: 'currentColor',
      fillRule: 'evenodd',
      style: { flex: 'none' },
    },
    ...shape.paths.map((d, index) => react.createElement('path', { key: index, d })),
  )
}

/** The plugin's icon: a star with two orbits, drawn in the current text colour. */
function memoryIcon(react: ReactLike, size: number): ReactNode {
  const stroke = { fill: 'none', stroke: 'currentColor', strokeWidth: 1.3 }
  return react.createElement(
    'svg',
    { width: size, height: size, viewBox: '0 0 16 16', 'aria-hidden': true, style: { flex: 'none' } },
    react.createElement('circle', { cx: 8, cy: 8, r: 2, fill: 'currentColor' }),
    react.createElement('ellipse', { cx: 8, cy: 8, rx: 6.5, ry: 3, ...stroke }),
    react.createElement('ellipse', { cx: 8, cy: 8, rx: 6.5, ry: 3, transform: 'rotate(60 8 8)', ...stroke }),
  )
}

/** The overlay entry that draws the page as a full panel while it is open. */
export function pageOverlay(react: ReactLike): (props: Props) => ReactNode {
  return (props) => {
    const open = (props['usePage'] as Use<PageState>)((state) => state.open)
    const app = props['app'] as AppState
    const LitHost = props['LitHost'] as (props: Props) => ReactNode
    react.useEffect(() => {
      if (!open) return undefined
      const onKey = (event: KeyboardEvent): void => {
        const path = event.composedPath()
        const target = path[0]
        // Esc in one of the page's own fields belongs to the field; a field under the page (the app's composer,
        // which keeps focus when a link or a reload opens the page) does not hold the page open.
        const typing =
          (target instanceof HTMLInputElement ||
            target instanceof HTMLTextAreaElement ||
            target instanceof HTMLSelectElement) &&
          path.some((node) => node instanceof HTMLElement && node.dataset['fm'] === 'page')
        if (event.key === 'Escape' && !typing) app.close()
      }
      document.addEventListener('keydown', onKey)
      return () => document.removeEventListener('keydown', onKey)
    }, [open])
    if (!open) return null
    // A backdrop over the whole window under the panel, so the app around it (the collapsed sidebar's entries at
    // narrow widths) does not show through the panel's margin.
    return react.createElement(
      'div',
      {
        'data-fm': 'page-backdrop',
        style: {
          position: 'fixed',
          inset: 0,
          pointerEvents: 'auto',
          zIndex: 40,
          background: 'var(--dsw-alias-bg-mask-1, rgba(0, 0, 0, 0.3))',
        },
      },
      react.createElement(
        'div',
        {
          'data-fm': 'page',
          role: 'dialog',
          'aria-label': 'Fact memory',
          style: {
            position: 'absolute',
            inset: 12,
            borderRadius: 12,
            overflow: 'hidden',
            boxShadow: 'var(--dsw-shadow-lv3)',
            border: '1px solid var(--dsw-alias-border-l2)',
            background: 'var(--dsw-alias-bg-base)',
          },
        },
        react.createElement(LitHost, { tag: 'fm-page', props: { app, closePage: () => app.close() } }),
      ),
    )
  }
}

/** The page as an application panel (`main`, on hosts that have it): no overlay, no close button. */
export function mainPanel(react: ReactLike): (props: Props) => ReactNode {
  return (props) => {
    const LitHost = props['LitHost'] as (props: Props) => ReactNode
    return react.createElement(
      'div',
      { 'data-fm': 'panel', style: { height: '100%', minHeight: 0 } },
      react.createElement(LitHost, { tag: 'fm-page', props: { app: props['app'], closePage: undefined } }),
    )
  }
}

/** The icon of the panel's sidebar row (`sidebar.panellist`; the host draws the label). */
export function panelIcon(react: ReactLike): (props: Props) => ReactNode {
  return (props) => {
    const badge = (props['useSummary'] as Use<Summary>)((state) => state.badge)
    const size = typeof props['size'] === 'number' ? props['size'] : 16
    return react.createElement(
      'span',
      { 'aria-hidden': true, style: { display: 'inline-flex', position: 'relative' } },
      memoryIcon(react, size),
      badge > 0
        ? react.createElement(
            'span',
            { style: { ...badgeStyle, position: 'absolute', top: -6, right: -12 } },
            String(badge),
          )
        : null,
    )
  }
}

/** The toast stack; a toast may carry an action (Undo) and can be dismissed. */
export function toastStack(react: ReactLike): (props: Props) => ReactNode {
  return (props) => {
    const toasts = (props['useToasts'] as Use<readonly Toast[]>)((list) => list)
    const app = props['app'] as AppState
    return react.createElement(
      'div',
      {
        'aria-live': 'polite',
        style: {
          position: 'fixed',
          right: 20,
          bottom: 20,
          display: 'flex',
          flexDirection: 'column',
          gap: 8,
          zIndex: 60,
          maxWidth: 420,
        },
      },
      ...toasts.map((toast) =>
        react.createElement(
          'div',
          {
            key: toast.id,
            role: 'status',
            'data-fm': 'toast',
            style: {
              pointerEvents: 'auto',
              display: 'flex',
              alignItems: 'center',
              gap: 12,
              padding: '8px 12px',
              borderRadius: 10,
              // The host's toast background is dark in both themes, so the text is its static white in both (the inverted
              // label token turns dark in the dark theme).
              background: 'var(--dsw-alias-toast-bg, #2b2e35)',
              color: 'var(--dsw-static-neutral-bluish-00, #ffffff)',
              boxShadow: 'var(--dsw-shadow-lv2)',
              fontSize: 13,
              lineHeight: '18px',
            },
          },
          react.createElement('span', { style: { flex: 1 } }, toast.tone === 'error' ? `⚠ ${toast.text}` : toast.text),
          toast.action === null
            ? null
            : react.createElement(
                'button',
                {
                  type: 'button',
                  style: { ...buttonStyle, color: 'inherit', fontWeight: 600 },
                  onClick: () => {
                    app.dismiss(toast.id)
                    void toast.action?.run()
                  },
                },
                toast.action.label,
              ),
          react.createElement(
            'button',
            {
              type: 'button',
              'aria-label': 'Dismiss',
              style: { ...buttonStyle, color: 'inherit' },
              onClick: () => app.dismiss(toast.id),
            },
            '✕',
          ),
        ),
      ),
    )
  }
}

/**
 * The session header button: opens the page; its badge counts pending proposals and open conflicts; a mark shows this
 * conversation wrote facts; beside it "Pause" pauses memory in this conversation (then the button reads "memory
 * paused" and "Resume" turns it back on).
 */
export function headerButton(react: ReactLike): (props: Props) => ReactNode {
  return (props) => {
    const badge = (props['useSummary'] as Use<Summary>)((state) => state.badge)
    const sessionId = (props['sessionId'] ?? props['ownSessionId']) as string | undefined
    const useSessions = props['useSessions'] as Use<Readonly<Record<string, SessionCountsWire>>>
    const wrote = useSessions((all) => (sessionId === undefined ? 0 : (all[sessionId]?.facts ?? 0)))
    const paused = useSessions((all) => (sessionId === undefined ? false : all[sessionId]?.paused === true))
    const app = props['app'] as AppState
    const togglePause = async (): Promise<void> => {
      if (sessionId === undefined) return
      const answer = await callVerb('session-pause', { sessionId, paused: !paused })
      if (!answer.ok) {
        app.toast(answer.message, { tone: 'error' })
        return
      }
      await app.refreshSession(sessionId)
      app.toast(
        paused
          ? 'Memory is on again in this conversation.'
          : 'Memory is paused in this conversation: nothing is recalled or saved until you resume it.',
      )
    }
    return react.createElement(
      'span',
      { style: { display: 'inline-flex', alignItems: 'center', gap: 4 } },
      wrote > 0
        ? react.createElement(
            'button',
            {
              type: 'button',
              'data-fm': 'session-mark',
              title: `This conversation wrote ${wrote} fact${wrote === 1 ? '' : 's'}`,
              'aria-label': `This conversation wrote ${wrote} facts`,
              style: { ...buttonStyle, padding: '4px 6px', fontSize: 12, color: 'var(--dsw-alias-label-secondary)' },
              onClick: () => app.drawer.set({ sessionId: sessionId ?? null, turn: null }),
            },
            '◉',
            ` ${wrote}`,
          )
        : null,
      react.createElement(
        'button',
        {
          type: 'button',
          'data-fm': 'header-button',
          'aria-label': `Memory${paused ? ', paused in this conversation' : ''}${badge > 0 ? `, ${badge} waiting for review` : ''}`,
          style: paused ? { ...pillStyle, opacity: 0.6 } : pillStyle,
          onClick: () =>
            app.open(
              badge > 0 ? (app.summary.getSnapshot().pendingProposals > 0 ? 'proposals' : 'conflicts') : 'library',
            ),
        },
        paused ? 'memory paused' : 'memory',
        badge > 0 ? react.createElement('span', { style: badgeStyle, 'data-fm': 'badge' }, String(badge)) : null,
      ),
      sessionId === undefined
        ? null
        : react.createElement(
            'button',
            {
              type: 'button',
              'data-fm': 'pause-toggle',
              'aria-pressed': paused,
              'aria-label': paused ? 'Resume memory in this session' : 'Pause in this session',
              title: paused
                ? 'Resume memory in this session'
                : 'Pause in this session: no capture, extraction, recall or directory until you resume',
              style: {
                ...buttonStyle,
                display: 'inline-flex',
                alignItems: 'center',
                justifyContent: 'center',
                minWidth: 28,
                minHeight: 28,
                padding: '4px 6px',
                color: 'var(--dsw-alias-label-secondary)',
              },
              onClick: () => {
                void togglePause()
              },
            },
            reactIcon(react, paused ? RESUME_ICON : PAUSE_ICON, 14),
          ),
    )
  }
}

/** How often a card asks again while extraction has yet to settle its turn. */
const EXTRACTION_POLL_MS = 3000

/**
 * The card under an assistant turn: what the turn wrote, whoever wrote it (the store's counts of the facts anchored
 * to it, so it survives a restart), "reading this turn…" while automatic extraction has yet to settle it, and the
 * turn's produced files, since the card takes the seat ahead of the host's own files card. A settled turn with
 * neither facts nor files renders nothing.
 */
export function turnTailCard(react: ReactLike): (props: Props) => ReactNode {
  return (props) => {
    const matched = props['matched'] as TurnMatch
    const sessionId = (props['sessionId'] ?? props['ownSessionId']) as string | undefined
    const useSessions = props['useSessions'] as Use<Readonly<Record<string, SessionCountsWire>>>
    const counts = useSessions((all) =>
      sessionId === undefined ? undefined : all[sessionId]?.turns.find((turn) => turn.turn === matched.turn),
    )
    const reading = useSessions((all) =>
      sessionId === undefined ? false : (all[sessionId]?.extractingTurns.includes(matched.turn) ?? false),
    )
    const app = props['app'] as AppState
    // A card mounts when its turn closes: re-read the conversation's counts and the badge then, and keep asking
    // while extraction has yet to settle this turn.
    react.useEffect(() => {
      if (sessionId === undefined) return undefined
      void app.refreshSession(sessionId)
      if (!reading) return undefined
      const timer = setInterval(() => {
        void app.refreshSession(sessionId)
      }, EXTRACTION_POLL_MS)
      return () => clearInterval(timer)
    }, [sessionId, matched.turn, matched.wrote, reading])
    const facts = counts?.facts ?? matched.wrote
    const recalled = counts?.recalled ?? 0
    const files = producedFiles(react, matched)
    const style = {
      display: 'flex',
      flexWrap: 'wrap',
      gap: 8,
      alignItems: 'center',
      fontSize: 12,
      lineHeight: '18px',
      color: 'var(--dsw-alias-label-secondary)',
      padding: '4px 0',
    }
    if (facts === 0 && (counts?.pending ?? 0) === 0 && recalled === 0) {
      if (reading) {
        return react.createElement(
          'div',
          { 'data-fm': 'turn-tail', 'data-state': 'reading', style },
          memoryIcon(react, 14),
          react.createElement('span', null, 'Fact memory: reading this turn…'),
          ...files,
        )
      }
      return files.length === 0 ? null : react.createElement('div', { 'data-fm': 'turn-files', style }, ...files)
    }
    const parts = turnCardParts(facts, recalled)
    if ((counts?.pending ?? 0) > 0) parts.push(`${counts?.pending} pending review`)
    if ((counts?.unsettled ?? 0) > 0) parts.push(`${counts?.unsettled} unsettled`)
    return react.createElement(
      'div',
      { 'data-fm': 'turn-tail', style },
      memoryIcon(react, 14),
      react.createElement('span', null, `Fact memory: ${parts.join(' · ')}`),
      react.createElement(
        'button',
        {
          type: 'button',
          style: { ...buttonStyle, fontSize: 12, border: '1px solid var(--dsw-alias-border-l2)' },
          onClick: () => app.drawer.set({ sessionId: sessionId ?? null, turn: matched.turn }),
        },
        'View',
      ),
      ...files,
    )
  }
}

/** The turn's produced files as chips (at most three, then a count). */
function producedFiles(react: ReactLike, matched: TurnMatch): ReactNode[] {
  if (matched.produced.length === 0) return []
  return [
    react.createElement('span', { key: 'label', style: { marginLeft: 8 } }, 'Produced'),
    ...matched.produced.slice(0, 3).map((path) =>
      react.createElement(
        'button',
        {
          key: path,
          type: 'button',
          title: path,
          style: chipStyle,
          onClick: () => matched.openFile?.(path),
        },
        path.split(/[\\/]/u).at(-1) ?? path,
      ),
    ),
    matched.produced.length > 3
      ? react.createElement('span', { key: 'more' }, `+ ${matched.produced.length - 3} files`)
      : null,
  ]
}

/** A stable empty id list, so a drawer without recall does not re-read on every render. */
const NO_IDS: readonly number[] = []

/**
 * One fact in the conversation drawer: its slot and value (marked when sensitive) as a button that opens it, and a
 * line about it below.
 * @param react - the host's React.
 * @param fact - the fact.
 * @param padding - the item's vertical padding (recalled facts sit tighter than written ones).
 * @param detail - the line below the button.
 * @param open - opens the fact in the library.
 * @returns the list item.
 */
function drawerFact(react: ReactLike, fact: FactView, padding: string, detail: string, open: () => void): ReactNode {
  return react.createElement(
    'li',
    { key: fact.id, style: { padding, borderBottom: '1px solid var(--dsw-alias-border-l1)' } },
    react.createElement(
      'button',
      {
        type: 'button',
        style: { ...buttonStyle, padding: 0, color: 'var(--dsw-alias-label-primary)' },
        onClick: open,
      },
      `${slotWords(fact)}: ${listedValue(fact)}${sensitiveMark(fact) === '' ? '' : ` (${sensitiveMark(fact)})`}`,
    ),
    react.createElement('div', { style: { color: 'var(--dsw-alias-label-secondary)', fontSize: 12 } }, detail),
  )
}

/** The drawer listing what one conversation wrote, turn by turn. */
export function conversationDrawer(react: ReactLike): (props: Props) => ReactNode {
  return (props) => {
    const drawer = (props['useDrawer'] as Use<DrawerState>)((state) => state)
    const app = props['app'] as AppState
    // The facts come with the store's display zone, so no date is drawn in the browser's zone first.
    const [listed, setListed] = react.useState<
      { readonly facts: readonly FactView[]; readonly timeZone: string } | undefined
    >(undefined)
    const [recalled, setRecalled] = react.useState<readonly FactView[]>([])
    const useSessions = props['useSessions'] as Use<Readonly<Record<string, SessionCountsWire>>> | undefined
    const recalledIds =
      useSessions?.((all) =>
        drawer.sessionId === null || drawer.turn === null
          ? undefined
          : all[drawer.sessionId]?.turns.find((turn) => turn.turn === drawer.turn)?.recalledIds,
      ) ?? NO_IDS
    react.useEffect(() => {
      if (drawer.sessionId === null) return undefined
      let live = true
      setListed(undefined)
      void Promise.all([callVerb('facts', { session: drawer.sessionId, status: 'all' }), app.displayZone()]).then(
        ([answer, timeZone]) => {
          if (live) setListed({ facts: answer.ok ? answer.data.facts : [], timeZone })
        },
      )
      return () => {
        live = false
      }
    }, [drawer.sessionId])
    // What per-turn recall showed the model on this turn, as the library holds those facts now.
    react.useEffect(() => {
      setRecalled([])
      if (recalledIds.length === 0) return undefined
      let live = true
      void callVerb('facts', { ids: [...recalledIds].slice(0, 100), status: 'all' }).then((answer) => {
        if (live && answer.ok)
          setRecalled(recalledIds.flatMap((id) => answer.data.facts.filter((fact) => fact.id === id)))
      })
      return () => {
        live = false
      }
    }, [recalledIds.join(',')])
    if (drawer.sessionId === null) return null
    const close = (): void => app.drawer.set({ sessionId: null, turn: null })
    const openInLibrary = (id: FactView['id']): void => {
      close()
      app.open('library', id)
    }
    const shown = (listed?.facts ?? []).filter((fact) => drawer.turn === null || fact.turn === drawer.turn)
    return react.createElement(
      'aside',
      {
        'data-fm': 'drawer',
        'aria-label': 'What this conversation wrote',
        style: {
          position: 'fixed',
          top: 12,
          right: 12,
          bottom: 12,
          width: 'min(420px, 90vw)',
          pointerEvents: 'auto',
          zIndex: 45,
          overflow: 'auto',
          padding: 16,
          borderRadius: 12,
          border: '1px solid var(--dsw-alias-border-l2)',
          background: 'var(--dsw-alias-bg-base)',
          color: 'var(--dsw-alias-label-primary)',
          boxShadow: 'var(--dsw-shadow-lv3)',
          fontSize: 13,
          lineHeight: '18px',
        },
      },
      react.createElement(
        'div',
        { style: { display: 'flex', alignItems: 'center', gap: 8 } },
        react.createElement(
          'strong',
          { style: { flex: 1 } },
          drawer.turn === null ? 'Facts from this conversation' : `Facts from turn ${drawer.turn}`,
        ),
        drawer.turn === null
          ? null
          : react.createElement(
              'button',
              { type: 'button', style: buttonStyle, onClick: () => app.drawer.set({ ...drawer, turn: null }) },
              'Whole conversation',
            ),
        react.createElement(
          'button',
          { type: 'button', 'aria-label': 'Close', style: buttonStyle, onClick: close },
          '✕',
        ),
      ),
      recalled.length === 0
        ? null
        : react.createElement(
            'section',
            { 'data-fm': 'drawer-recalled' },
            react.createElement(
              'p',
              { style: { margin: '12px 0 4px', color: 'var(--dsw-alias-label-secondary)' } },
              `Recalled for this turn's message (${recalled.length}): shown to the model beside the directory, without a search.`,
            ),
            react.createElement(
              'ul',
              { style: { listStyle: 'none', padding: 0, margin: 0 } },
              ...recalled.map((fact) =>
                drawerFact(
                  react,
                  fact,
                  '6px 0',
                  `${STATUS_LABEL[fact.status] ?? fact.status} · ${fact.evidence}${listed === undefined ? '' : ` · since ${formatInstant(fact.validFrom, listed.timeZone)}`}`,
                  () => openInLibrary(fact.id),
                ),
              ),
            ),
          ),
      listed === undefined
        ? react.createElement('p', null, 'Loading…')
        : shown.length === 0
          ? react.createElement(
              'p',
              null,
              recalled.length > 0
                ? 'Nothing was written on this turn.'
                : 'Nothing recorded for this part of the conversation.',
            )
          : react.createElement(
              'ul',
              { style: { listStyle: 'none', padding: 0 } },
              ...shown.map((fact) =>
                drawerFact(
                  react,
                  fact,
                  '8px 0',
                  `${STATUS_LABEL[fact.status] ?? fact.status} · turn ${fact.turn ?? '?'} · ${formatInstant(fact.recordedAt, listed.timeZone)}${seenNote(fact.foldedCount)}`,
                  () => openInLibrary(fact.id),
                ),
              ),
            ),
    )
  }
}
