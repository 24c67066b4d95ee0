/**
 * The pure rules of team memory (issue 34 item 5): which of this device's change records go into a repository's
 * team folder, and how a teammate's records read from it become records this store may apply. A teammate's statement
 * is not this user's word: it arrives as observed evidence (never stronger), under a device id of its own
 * (`team-<project tag>-<device>`) that names the teammate's machine as its source, with an operation id of its own (so
 * the same change read through personal sync keeps its full weight), and with every clock it saw of this device left
 * out, so a teammate's correction or forget ends only teammates' statements, never this user's own. Pins and aliases
 * stay personal; sensitive values never travel; a record naming another project is refused. No file, no store.
 */
import { EVIDENCE_ORDER, type Evidence } from '../types.ts'
import { sha256 } from '../text/normalize.ts'
import type { ChangeRecord, FactRow, SlotRef } from '../sync/change-record.ts'

/** The folder, under a repository's root, that holds its team memory. */
export const TEAM_FOLDER = '.fact-memory'

/** The strongest evidence a teammate's statement carries here. */
export const TEAMMATE_EVIDENCE: Evidence = 'observed'

/** What a teammate's device is called on this machine: its own name after this word. */
export const TEAMMATE_WORD = 'teammate'

const DEVICE_PART = /^[a-z0-9][a-z0-9-]{0,49}$/u
const TEAM_DEVICE = /^team-([0-9a-f]{8})-([a-z0-9][a-z0-9-]{0,49})$/u

/**
 * The short tag of a project key that keeps one teammate's devices in two repositories apart.
 * @param projectKey - the project's key (its repository's identity).
 * @returns 8 hex digits.
 */
export function projectTag(projectKey: string): string {
  return sha256(projectKey).slice(0, 8)
}

/**
 * The device id a teammate's device has on this machine, for one project.
 * @param projectKey - the project.
 * @param device - the teammate's own device id.
 * @returns `team-<tag>-<device>`, or undefined for an id too long to carry.
 */
export function teamDeviceId(projectKey: string, device: string): string | undefined {
  return DEVICE_PART.test(device) ? `team-${projectTag(projectKey)}-${device}` : undefined
}

/**
 * Whether a device id is a teammate's (a device read from a repository's team folder).
 * @param device - a device id as the store keeps it.
 * @returns true for `team-<tag>-<device>`.
 */
export function isTeamDevice(device: string): boolean {
  return TEAM_DEVICE.test(device)
}

/**
 * This device's records that go into a project's team folder: those of the project's slots, with no pin and no
 * alias (a pin is one person's view; an alias renames subjects beyond the project), a forget without its tombstone
 * keys, a move across the project's edge as the end or the statement it is on this side, rows without their pin
 * and quote (the user's own words stay on the machine), and a restore only of records that went. Sensitive records
 * are expected left out already (the store's team log never holds them); a row marked sensitive is dropped again.
 * @param log - this device's non-sensitive records, in clock order.
 * @param projectKey - the project.
 * @returns the records to seal, in the same order.
 */
export function outgoingTeamRecords(log: readonly ChangeRecord[], projectKey: string): ChangeRecord[] {
  const inProject = (slot: SlotRef): boolean => slot.project === projectKey
  const out: ChangeRecord[] = []
  const sent = new Set<string>()
  for (const record of log) {
    const kept = outgoing(record, inProject, sent)
    if (kept === undefined) continue
    sent.add(kept.op)
    out.push(kept)
  }
  return out
}

function outgoing(
  record: ChangeRecord,
  inProject: (slot: SlotRef) => boolean,
  sent: ReadonlySet<string>,
): ChangeRecord | undefined {
  switch (record.kind) {
    case 'write':
    case 'put_back':
      return inProject(record.slot) && shareable(record.row) ? { ...record, row: sharedRow(record.row) } : undefined
    case 'supersede':
    case 'settle':
      return inProject(record.slot) ? record : undefined
    case 'forget':
      return inProject(record.slot) ? { ...record, tombstones: [] } : undefined
    case 'move': {
      const from = inProject(record.slot)
      const to = inProject(record.to)
      if (!shareable(record.row) || (!from && !to)) return undefined
      if (from && to) return { ...record, row: sharedRow(record.row) }
      const { op, device, hlc, seen } = record
      if (from)
        return {
          op,
          device,
          hlc,
          seen,
          kind: 'supersede',
          slot: record.slot,
          ends: [{ value: record.value, as: 'moved' }],
          by: null,
        }
      return {
        op,
        device,
        hlc,
        seen,
        kind: 'write',
        slot: record.to,
        value: record.value,
        row: sharedRow(record.row),
        ends: [],
      }
    }
    case 'restore': {
      const undoes = record.undoes.filter((op) => sent.has(op))
      return undoes.length === 0 ? undefined : { ...record, undoes }
    }
    // One person's view, or a change reaching beyond the project; a teammate may not make this user forget.
    case 'pin':
    case 'alias':
    case 'unalias':
    case 'display':
    case 'tombstone':
      return undefined
  }
}

/** The kinds a teammate's file may carry; pins, aliases, names and bare tombstones in one are ignored. */
const TEAM_KINDS: ReadonlySet<ChangeRecord['kind']> = new Set([
  'write',
  'supersede',
  'settle',
  'forget',
  'move',
  'put_back',
  'restore',
])

/** What reading a teammate's records gave: the records to apply, and what was refused, in words. */
export interface IncomingTeamRecords {
  readonly records: readonly ChangeRecord[]
  readonly refused: readonly string[]
}

/**
 * A teammate's records as this store applies them: device, clock and operation under the teammate's team id;
 * `seen` without this device (and without devices of other projects); every row's evidence at most observed and
 * unpinned; a forget as the end of the value (retired) instead of a tombstone, so it withdraws what teammates said
 * and never forgets this user's own statement or blocks relearning here. Pins and aliases are skipped; a record that
 * names another project, or a sensitive row, is refused in words.
 * @param records - validated records read from the team folder (any device but this one).
 * @param projectKey - the project whose folder they were read from.
 * @param self - this device's id.
 * @param nameOf - a device's readable name, for the refusals.
 * @returns the records to apply and the refusals.
 */
export function incomingTeamRecords(
  records: readonly ChangeRecord[],
  projectKey: string,
  self: string,
  nameOf: (device: string) => string = (device) => device,
): IncomingTeamRecords {
  const tag = projectTag(projectKey)
  const out: ChangeRecord[] = []
  const refused: string[] = []
  const mapOp = (op: string): string => `team:${tag}:${op}`.slice(0, 128)
  const mapDevice = (device: string): string | undefined => {
    if (device === self) return undefined
    const team = TEAM_DEVICE.exec(device)
    if (team === null) return teamDeviceId(projectKey, device)
    return team[1] === tag && team[2] !== self ? device : undefined
  }
  for (const record of records) {
    const device = mapDevice(record.device)
    if (device === undefined || !TEAM_KINDS.has(record.kind)) continue
    const who = `${TEAMMATE_WORD} ${nameOf(record.device)}`
    const slots = 'slot' in record ? [record.slot, ...(record.kind === 'move' ? [record.to] : [])] : []
    if (slots.some((slot) => slot.project !== projectKey)) {
      refused.push(`a change from ${who} names another project than this repository's; it was not applied`)
      continue
    }
    if ('row' in record && !shareable(record.row)) {
      refused.push(`a sensitive value from ${who} was not applied: sensitive facts never travel through the repository`)
      continue
    }
    const seen = Object.fromEntries(
      Object.entries(record.seen).flatMap(([other, hlc]) => {
        const mapped = mapDevice(other)
        return mapped === undefined ? [] : [[mapped, restamp(hlc, other, mapped)]]
      }),
    )
    const base = { op: mapOp(record.op), device, hlc: restamp(record.hlc, record.device, device), seen }
    switch (record.kind) {
      case 'forget':
        out.push({
          ...base,
          kind: 'supersede',
          slot: record.slot,
          ends: [{ value: record.value, as: 'retired' }],
          by: null,
        })
        break
      case 'restore':
        out.push({ ...base, kind: 'restore', undoes: record.undoes.map(mapOp) })
        break
      case 'write':
      case 'put_back':
      case 'move':
        out.push({ ...record, ...base, row: observedRow(record.row) })
        break
      default:
        out.push({ ...record, ...base })
    }
  }
  return { records: out, refused }
}

/**
 * The name a teammate's device is shown by.
 * @param name - the name its device.json gives.
 * @returns `teammate <name>`, at most 200 characters.
 */
export function teammateName(name: string): string {
  return `${TEAMMATE_WORD} ${name}`.slice(0, 200)
}

/** Whether a row may travel through a repository: never a sensitive one. */
function shareable(row: FactRow): boolean {
  return row.sensitivity === undefined || row.sensitivity === null
}

function sharedRow(row: FactRow): FactRow {
  const { pinnedAt: _pinned, quote: _quote, ...rest } = row
  return rest
}

function observedRow(row: FactRow): FactRow {
  const { pinnedAt: _pinned, ...rest } = row
  const evidence = row.evidence ?? TEAMMATE_EVIDENCE
  const weaker = EVIDENCE_ORDER.indexOf(evidence) > EVIDENCE_ORDER.indexOf(TEAMMATE_EVIDENCE)
  return { ...rest, evidence: weaker ? evidence : TEAMMATE_EVIDENCE }
}

/** A clock reading stamped by one device, as stamped by its id here (`<ms>-<counter>-<device>`). */
function restamp(hlc: string, from: string, to: string): string {
  return hlc.endsWith(`-${from}`) ? `${hlc.slice(0, hlc.length - from.length)}${to}` : hlc
}
