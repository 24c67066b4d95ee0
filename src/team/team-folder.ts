/**
 * The team folder of one repository, `<root>/.fact-memory/`, as a sync round (sync/sync-round.ts) drives it: opened
 * as a plain sync folder (sync/sync-folder.ts, the same layout, sealed files and cursor), each device writing only
 * under its own `devices/<id>/`, so two teammates never edit the same file and git never has a conflict to merge; and
 * the store's team log behind the sync log port, with the team rules (team-records.ts) on the way out and in. The
 * plugin only writes files into the working tree; committing and pushing them is the user's, with the code.
 */
import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { ChangeRecord } from '../sync/change-record.ts'
import type { OpenedTarget } from '../sync/open-round-target.ts'
import { writeSealed } from '../sync/sealed-file.ts'
import { isFolder, SyncFolder, type Cursor } from '../sync/sync-folder.ts'
import type { DeviceIdentity, Received, SyncLogPort } from '../sync/sync-log-port.ts'
import { incomingTeamRecords, outgoingTeamRecords, TEAM_FOLDER, teamDeviceId, teammateName } from './team-records.ts'

/** The store's team side, as one project's rounds use it. */
export interface TeamLogView {
  device(): DeviceIdentity
  teamLog(key: string): readonly ChangeRecord[]
  /** False while a change commits in slices (its records may yet roll back). */
  settled(): boolean
  cursor(key: string): Cursor
  receive(
    key: string,
    records: readonly ChangeRecord[],
    cursor: Cursor,
    names: Readonly<Record<string, string>>,
  ): Received
}

/** What a developer reads who finds the folder in the repository. */
const README = `# .fact-memory: team memory of DSH fact memory

This folder holds the project-scoped facts that teammates' DSH fact memory plugins shared for this repository
(turned on per project, on the Sync panel or with the \`team-memory\` verb). Each machine writes only its own sealed
files under \`devices/<device-id>/\`, so merging branches never conflicts here. Commit the folder with the code;
the plugin never commits or pushes. Sensitive facts never go here. A teammate's fact arrives on your machine as
observed, never stronger than your own word. See docs/team-memory.md of dsh-fact-memory.
`

/**
 * The team folder's path in a checkout.
 * @param root - the repository's root.
 * @returns `<root>/.fact-memory`.
 */
export function teamFolderOf(root: string): string {
  return join(root, TEAM_FOLDER)
}

/**
 * Open a repository's team folder for a round: created when missing, with a short README beside the sync marker.
 * Never throws: a checkout that is gone or a folder that cannot be written is a failure in words.
 * @param root - the repository's root on this machine.
 * @param device - this device.
 * @param now - ISO instant for the device description.
 * @returns the round's target, or why not.
 */
export async function openTeamFolder(root: string, device: DeviceIdentity, now: string): Promise<OpenedTarget> {
  const path = teamFolderOf(root)
  try {
    if (!(await isFolder(root)))
      return { ok: false, reason: `the repository ${root} is not there; team memory waits until it is` }
    await mkdir(path, { recursive: true })
    const opened = await SyncFolder.open(path, device.id, device.name, undefined, now)
    if (!opened.ok) return opened
    const readme = join(path, 'README.md')
    if ((await readFile(readme, 'utf8').catch(() => undefined)) !== README)
      await writeSealed(readme, Buffer.from(README))
    return { ok: true, target: { kind: 'folder', folder: opened.folder } }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return { ok: false, reason: `the team folder ${path} cannot be written (${code ?? (error as Error).message})` }
  }
}

/**
 * One project's side of the sync log port: this device's team records go out (team-records.ts picks them), the
 * teammates' records come in as team records, named `teammate <name>`. The sealed watermark is kept in memory: the
 * folder's own newest file tells a round what it already holds (sync-round.ts reads it), so a restart resends
 * nothing the folder has.
 * @param view - the store's team side.
 * @param key - the project key.
 * @param onReceive - wraps the store's receive (the caller marks its own receiving, so it is not taken for a write).
 * @returns the port.
 */
export function teamPort(
  view: TeamLogView,
  key: string,
  onReceive: <T>(work: () => T) => T = (work) => work(),
): SyncLogPort {
  let published: string | null = null
  const ownLog = (): readonly ChangeRecord[] => outgoingTeamRecords(view.teamLog(key), key)
  const after = (hlc: string | null): readonly ChangeRecord[] =>
    hlc === null ? ownLog() : ownLog().filter((record) => record.hlc > hlc)
  return {
    device: () => view.device(),
    ownLog,
    ownLogAfter: (hlc, limit) => {
      const fresh = after(hlc)
      return limit === undefined || limit < 0 ? fresh : fresh.slice(0, limit)
    },
    pending: () => after(published).length,
    settled: () => view.settled(),
    publishedThrough: () => published,
    markPublished: (hlc) => {
      if (published === null || published < hlc) published = hlc
    },
    cursor: () => view.cursor(key),
    receive: (records, cursor, names = {}) => {
      const self = view.device().id
      const incoming = incomingTeamRecords(records, key, self, (device) => names[device] ?? device)
      const teamNames: Record<string, string> = {}
      for (const [device, name] of Object.entries(names)) {
        const id = teamDeviceId(key, device)
        if (id !== undefined && device !== self) teamNames[id] = teammateName(name)
      }
      const got = onReceive(() => view.receive(key, incoming.records, cursor, teamNames))
      return { fresh: got.fresh, changedSlots: got.changedSlots, refused: [...incoming.refused, ...got.refused] }
    },
  }
}
