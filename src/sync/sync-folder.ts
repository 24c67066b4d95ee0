/**
 * SyncFolder: one device's view of a sync folder (a folder a file-sync tool or a network share keeps in step, or a
 * git transport's working copy). Layout:
 *   dsh-fact-memory-sync.json            marker (format, version), written once
 *   devices/<id>/device.json             the device's readable name
 *   devices/<id>/segments/<seq>.seg      sealed segments, sequence numbers rising
 *   devices/<id>/snapshots/<seq>.snap    the device's whole log up to segment <seq>
 * A device writes only under its own `devices/<id>/`, every file sealed (sealed-file.ts), and never rewrites or removes
 * another device's file; its own compaction replaces its segments by a snapshot. Reading another device starts after a
 * cursor (the last sequence number read cleanly), from the newest snapshot when the segments after the cursor are gone.
 * A damaged or unreadable file is reported in words and the others are still read; the cursor stops before it, so it is
 * read again until it heals (a sync tool still copying) or a snapshot covers it.
 */
import { readdir, readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { ChangeRecord } from './change-record.ts'
import type { SegmentCipher } from './segment-cipher.ts'
import { decodeSegment, encodeSegment, readSegmentHeader, type SegmentRead } from './segment-format.ts'
import type { SegmentHeader } from './segment-header.ts'
import { TEMP_PREFIX, writeSealed } from './sealed-file.ts'
import { isFolderMarker, parseDeviceFile } from './sync-folder.schema.ts'

/** The marker file's name. */
export const FOLDER_MARKER = 'dsh-fact-memory-sync.json'

/** One file of a device's log. */
export interface SegmentRef {
  readonly device: string
  readonly kind: 'segment' | 'snapshot'
  readonly seq: number
  /** Path relative to the folder's root, with forward slashes. */
  readonly file: string
}

/** Another device found in the folder. */
export interface DeviceEntry {
  readonly device: string
  /** Its readable name; its id when its description is missing or unreadable. */
  readonly name: string
}

/** Per device, the last sequence number read cleanly. */
export type Cursor = Readonly<Record<string, number>>

/** What one read of the other devices brought. */
export interface PendingRead {
  readonly records: readonly ChangeRecord[]
  /** Sentences naming the device and file of each problem. */
  readonly problems: readonly string[]
  readonly cursor: Cursor
  /** Files read. */
  readonly files: number
}

const SEQ_DIGITS = 10
const DEVICE_DIR = /^[a-z0-9][a-z0-9-]{0,63}$/u

/** One device's reads and writes in a sync folder. */
export class SyncFolder {
  readonly root: string
  readonly device: string
  private readonly cipher: SegmentCipher | undefined

  private constructor(root: string, device: string, cipher: SegmentCipher | undefined) {
    this.root = root
    this.device = device
    this.cipher = cipher
  }

  /**
   * Open a sync folder for a device: the marker is written when the folder has none, the device's description when
   * it is missing or names the device otherwise.
   * @param root - the folder (absolute).
   * @param device - this device's id.
   * @param name - this device's readable name.
   * @param cipher - encrypts what this device writes and opens what others encrypted; none: plain files.
   * @param now - ISO instant for the description.
   * @returns the open folder, or why the folder is not one this plugin may use.
   */
  static async open(
    root: string,
    device: string,
    name: string,
    cipher: SegmentCipher | undefined,
    now: string,
  ): Promise<{ ok: true; folder: SyncFolder } | { ok: false; reason: string }> {
    if (!DEVICE_DIR.test(device)) throw new TypeError(`not a device id: ${JSON.stringify(device)}`)
    const marker = await readJson(join(root, FOLDER_MARKER))
    if (marker === undefined) {
      const entries = await readdir(root).catch(() => [])
      if (entries.some((entry) => entry !== 'devices' && !entry.startsWith('.'))) {
        return {
          ok: false,
          reason: `${root} holds other files and no ${FOLDER_MARKER}; name an empty folder or one this plugin made`,
        }
      }
      await writeSealed(
        join(root, FOLDER_MARKER),
        Buffer.from(`${JSON.stringify({ format: 'dsh-fact-memory.sync-folder', version: 1 })}\n`),
      )
    } else if (!isFolderMarker(marker)) {
      return { ok: false, reason: `${FOLDER_MARKER} in ${root} names another format or a newer version` }
    }
    const folder = new SyncFolder(root, device, cipher)
    const described = parseDeviceFile(await readJson(join(folder.deviceDir(device), 'device.json')))
    if (described?.name !== name || described.device !== device) {
      await writeSealed(
        join(folder.deviceDir(device), 'device.json'),
        Buffer.from(`${JSON.stringify({ device, name, updatedAt: now })}\n`),
      )
    }
    return { ok: true, folder }
  }

  /**
   * Append this device's new records as the next sealed segment.
   * @param records - records of this device, in clock order (none: nothing is written).
   * @returns the segment written, or undefined for no records.
   */
  async append(records: readonly ChangeRecord[]): Promise<SegmentRef | undefined> {
    if (records.length === 0) return undefined
    const seq = (await this.lastSeq(this.device)) + 1
    const ref = this.refOf(this.device, 'segment', seq)
    await writeSealed(join(this.root, ref.file), encodeSegment('segment', this.device, seq, records, this.cipher))
    return ref
  }

  /**
   * Replace this device's segments by one snapshot of its whole log, then remove the segments and older snapshots it
   * covers. The snapshot is sealed before anything is removed, so a crash in between leaves both, never neither.
   * @param log - this device's whole log, in clock order (see {@link compactLog}).
   * @returns the snapshot and how many files were removed, or undefined when there was no segment to compact.
   */
  async compact(log: readonly ChangeRecord[]): Promise<{ snapshot: SegmentRef; removed: number } | undefined> {
    const own = await this.files(this.device)
    const segments = own.filter((ref) => ref.kind === 'segment')
    if (segments.length === 0) return undefined
    const seq = Math.max(...own.map((ref) => ref.seq))
    const snapshot = this.refOf(this.device, 'snapshot', seq)
    await writeSealed(join(this.root, snapshot.file), encodeSegment('snapshot', this.device, seq, log, this.cipher))
    let removed = 0
    for (const ref of own) {
      if (ref.seq <= seq && ref.file !== snapshot.file) {
        await rm(join(this.root, ref.file), { force: true })
        removed += 1
      }
    }
    return { snapshot, removed }
  }

  /**
   * Remove this device's own temporary files (`.tmp-` names) last changed before `before`: a segment, snapshot or
   * description a killed process was writing and never renamed. Only this device's folder is looked at, never
   * another device's; a younger one may be another process of this device writing right now, and stays.
   * @param before - epoch ms; files last modified at or after it stay.
   * @returns how many files were removed.
   */
  async removeStaleTemps(before: number): Promise<number> {
    let removed = 0
    const own = this.deviceDir(this.device)
    for (const dir of [own, join(own, 'segments'), join(own, 'snapshots')]) {
      const names = await readdir(dir).catch(() => [] as string[])
      for (const name of names) {
        if (!name.startsWith(TEMP_PREFIX)) continue
        const path = join(dir, name)
        const info = await stat(path).catch(() => undefined)
        if (info === undefined || !info.isFile() || info.mtimeMs >= before) continue
        await rm(path, { force: true })
        removed += 1
      }
    }
    return removed
  }

  /**
   * The other devices in the folder.
   * @returns id and readable name of each, by id.
   */
  async others(): Promise<DeviceEntry[]> {
    const entries = await readdir(join(this.root, 'devices'), { withFileTypes: true }).catch(() => [])
    const devices: DeviceEntry[] = []
    for (const entry of entries) {
      if (!entry.isDirectory() || !DEVICE_DIR.test(entry.name) || entry.name === this.device) continue
      const described = parseDeviceFile(await readJson(join(this.deviceDir(entry.name), 'device.json')))
      devices.push({ device: entry.name, name: described?.device === entry.name ? described.name : entry.name })
    }
    return devices.sort((a, b) => (a.device < b.device ? -1 : 1))
  }

  /**
   * The files of the other devices to read after a cursor: per device, its segments after the cursor, or its newest
   * snapshot and the segments after it when the next segment was compacted away.
   * @param cursor - per device, the last sequence number read cleanly (absent: nothing read yet).
   * @returns the files, by device then sequence number.
   */
  async pending(cursor: Cursor): Promise<SegmentRef[]> {
    const refs: SegmentRef[] = []
    for (const { device } of await this.others()) {
      const after = cursor[device] ?? 0
      const files = await this.files(device)
      const segments = files.filter((ref) => ref.kind === 'segment' && ref.seq > after)
      const snapshot = files.filter((ref) => ref.kind === 'snapshot' && ref.seq > after).at(-1)
      if (snapshot !== undefined && segments[0]?.seq !== after + 1) {
        refs.push(snapshot, ...segments.filter((ref) => ref.seq > snapshot.seq))
      } else {
        refs.push(...segments)
      }
    }
    return refs
  }

  /**
   * Read one file.
   * @param ref - the file.
   * @returns its records and problems, or why it could not be read.
   */
  async read(ref: SegmentRef): Promise<SegmentRead> {
    let bytes: Buffer
    try {
      bytes = await readFile(join(this.root, ref.file))
    } catch (error) {
      const gone = (error as NodeJS.ErrnoException).code === 'ENOENT'
      return {
        ok: false,
        reason: gone
          ? "the file was removed by its device's compaction; its snapshot is read next time"
          : `the file cannot be read (${(error as Error).message})`,
      }
    }
    return decodeSegment(bytes, this.cipher)
  }

  /**
   * Read everything the other devices added after a cursor.
   * @param cursor - see {@link pending}.
   * @param nameOf - a device's readable name for the problem sentences.
   * @returns the records (repeats possible: applying is idempotent), the problems, and the cursor after the files
   *   read cleanly in sequence (it stops before a damaged file, so that file is read again next time).
   */
  async readPending(cursor: Cursor, nameOf: (device: string) => string = (device) => device): Promise<PendingRead> {
    const records: ChangeRecord[] = []
    const problems: string[] = []
    let next: Cursor = cursor
    let files = 0
    for await (const file of this.pendingFiles(cursor, nameOf)) {
      records.push(...file.records)
      problems.push(...file.problems)
      next = file.cursor
      files += 1
    }
    return { records, problems, cursor: next, files }
  }

  /**
   * Read what the other devices added after a cursor one file at a time, so a reader can keep each file's records
   * (in slices) before it reads the next.
   * @param cursor - see {@link pending}.
   * @param nameOf - a device's readable name for the problem sentences.
   * @returns per file in order: its records, its problems, and the cursor once it and every file before it are kept
   *   (it stops before a damaged file, so that file is read again next time).
   */
  async *pendingFiles(
    cursor: Cursor,
    nameOf: (device: string) => string = (device) => device,
  ): AsyncGenerator<Omit<PendingRead, 'files'>> {
    const next: Record<string, number> = { ...cursor }
    const blocked = new Set<string>()
    for (const ref of await this.pending(cursor)) {
      const read = await this.read(ref)
      const where = `${nameOf(ref.device)}: ${ref.file}`
      if (!read.ok) {
        blocked.add(ref.device)
        yield { records: [], problems: [`${where}: ${read.reason}`], cursor: { ...next } }
        continue
      }
      const problems = read.problems.map((problem) => `${where}: ${problem}`)
      if (read.header.device !== ref.device || read.header.seq !== ref.seq || read.header.kind !== ref.kind) {
        problems.push(
          `${where}: the header names another file (${read.header.device}, ${read.header.kind} ${read.header.seq})`,
        )
        blocked.add(ref.device)
      }
      if (read.problems.length > 0) blocked.add(ref.device)
      if (!blocked.has(ref.device)) next[ref.device] = ref.seq
      yield { records: read.records, problems, cursor: { ...next } }
    }
  }

  /**
   * The clock of this device's newest record already in the folder, read from its newest file's header (readable
   * without the passphrase): after a crash between sealing a segment and noting it, the next round starts after it
   * instead of sending it twice.
   * @returns the clock text, or null when this device has no readable file yet.
   */
  async ownHighWater(): Promise<string | null> {
    return (await this.ownNewestHeader())?.lastHlc ?? null
  }

  /**
   * How this device's newest file is sealed: a device that finds no passphrase while its own files are encrypted must
   * not go on in plain files (supervisor: a credential store that does not answer, or a passphrase removed).
   * @returns encrypted, plain, or none when this device has no readable file here yet.
   */
  async ownSealing(): Promise<'encrypted' | 'plain' | 'none'> {
    const header = await this.ownNewestHeader()
    return header === undefined ? 'none' : header.cipher === null ? 'plain' : 'encrypted'
  }

  /**
   * How many segments of this device are waiting for compaction.
   * @returns the count.
   */
  async ownSegmentCount(): Promise<number> {
    return (await this.files(this.device)).filter((ref) => ref.kind === 'segment').length
  }

  /** The header of this device's newest file, or undefined when it has none that can be read. */
  private async ownNewestHeader(): Promise<SegmentHeader | undefined> {
    const newest = (await this.files(this.device)).at(-1)
    if (newest === undefined) return undefined
    const bytes = await readFile(join(this.root, newest.file)).catch(() => undefined)
    if (bytes === undefined) return undefined
    const read = readSegmentHeader(bytes)
    return read.ok ? read.header : undefined
  }

  /** The device's folder. */
  deviceDir(device: string): string {
    return join(this.root, 'devices', device)
  }

  /** The highest sequence number among a device's files; 0 when it has none. */
  private async lastSeq(device: string): Promise<number> {
    return Math.max(0, ...(await this.files(device)).map((ref) => ref.seq))
  }

  /** A device's segments and snapshots, by sequence number (a snapshot after the segment it covers). */
  private async files(device: string): Promise<SegmentRef[]> {
    const refs: SegmentRef[] = []
    for (const [kind, dir, ext] of [
      ['segment', 'segments', '.seg'],
      ['snapshot', 'snapshots', '.snap'],
    ] as const) {
      const names = await readdir(join(this.deviceDir(device), dir)).catch(() => [] as string[])
      for (const name of names) {
        if (name.startsWith(TEMP_PREFIX) || !name.endsWith(ext)) continue
        const seq = Number(name.slice(0, -ext.length))
        if (Number.isSafeInteger(seq) && seq > 0) refs.push(this.refOf(device, kind, seq))
      }
    }
    return refs.sort((a, b) => a.seq - b.seq || (a.kind === b.kind ? 0 : a.kind === 'segment' ? -1 : 1))
  }

  private refOf(device: string, kind: SegmentRef['kind'], seq: number): SegmentRef {
    const name = String(seq).padStart(SEQ_DIGITS, '0')
    return {
      device,
      kind,
      seq,
      file: kind === 'segment' ? `devices/${device}/segments/${name}.seg` : `devices/${device}/snapshots/${name}.snap`,
    }
  }
}

/**
 * A device's log with what its own later records make irrelevant left out: a pin, an alias or a display name followed
 * by a later pin of the same value, alias of the same name (with no removal of it in between) or display of the same
 * name from this device (when that later one was not undone). The merged
 * library is the same with or without them (merge.ts takes the latest).
 * @param log - one device's records, in clock order.
 * @returns the records to keep, in the same order.
 */
export function compactLog(log: readonly ChangeRecord[]): ChangeRecord[] {
  const undone = new Set(log.flatMap((record) => (record.kind === 'restore' ? record.undoes : [])))
  const keyOf = (record: ChangeRecord): string | undefined => {
    if (record.kind === 'pin') return `pin\u0000${JSON.stringify(record.slot)}\u0000${record.value}`
    if (record.kind === 'alias') return `alias\u0000${record.aliasKind}\u0000${record.entity ?? ''}\u0000${record.from}`
    if (record.kind === 'display')
      return `display\u0000${record.nameKind}\u0000${record.entity}\u0000${record.predicate ?? ''}`
    return undefined
  }
  const later = new Set<string>()
  const kept: ChangeRecord[] = []
  for (let index = log.length - 1; index >= 0; index -= 1) {
    const record = log[index] as ChangeRecord
    // An alias removed still holds for what was stated before the removal: a later alias of the name overrides
    // only the aliases after the last removal.
    if (record.kind === 'unalias' && !undone.has(record.op))
      later.delete(`alias\u0000${record.aliasKind}\u0000${record.entity ?? ''}\u0000${record.from}`)
    const key = keyOf(record)
    if (key !== undefined && !undone.has(record.op)) {
      if (later.has(key)) continue
      later.add(key)
    }
    kept.push(record)
  }
  return kept.reverse()
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8'))
  } catch {
    return undefined
  }
}

/**
 * Whether a path is a folder that exists.
 * @param path - the path.
 * @returns true for an existing folder.
 */
export async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true
}
