/**
 * Segment files and the sync folder, on real files: a segment round-trips plain and encrypted; a truncated file, a
 * damaged record, a wrong or missing passphrase and a foreign record are each reported in words while every readable
 * record still arrives; a device writes only under its own folder, sealed, and never touches another's files;
 * readers resume after a cursor, stop the cursor before a damaged file and pass it once it heals; compaction replaces
 * a device's segments by a snapshot that late readers start from.
 */
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, it } from 'node:test'
import type { ChangeRecord } from '../src/sync/change-record.ts'
import { SegmentCipher } from '../src/sync/segment-cipher.ts'
import { decodeSegment, encodeSegment, recordLine } from '../src/sync/segment-format.ts'
import { compactLog, SyncFolder } from '../src/sync/sync-folder.ts'
import { mergeRecords } from '../src/sync/merge.ts'
import { SimDevice, slot } from './helpers/sync-devices.ts'
import { removeDir, tempDir } from './helpers/store.ts'

const T0 = Date.parse('2026-03-01T09:00:00.000Z')
const NOW = '2026-03-01T09:00:00.000Z'

function deviceWith(id: string, count: number): SimDevice {
  const device = new SimDevice(id, T0)
  for (let index = 0; index < count; index += 1) device.write(slot(`svc-${index % 4}`), `${7800 + index}`)
  return device
}

async function openFolder(root: string, device: string, cipher?: SegmentCipher): Promise<SyncFolder> {
  const opened = await SyncFolder.open(root, device, `${device} machine`, cipher, NOW)
  assert.ok(opened.ok, opened.ok ? '' : opened.reason)
  return opened.folder
}

/** Every file under a folder with its bytes, for "nothing else changed" checks. */
function snapshotTree(root: string): Map<string, string> {
  const files = new Map<string, string>()
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath, entry.name)
      files.set(path.slice(root.length), `${statSync(path).mtimeMs}:${readFileSync(path, 'hex')}`)
    }
  }
  return files
}

describe('segment files', () => {
  const records = (): ChangeRecord[] => deviceWith('laptop', 5).log

  it('round-trips records plain and encrypted, and binds the header to the encrypted body', () => {
    const log = records()
    const plain = decodeSegment(encodeSegment('segment', 'laptop', 1, log))
    assert.deepEqual(plain, { ok: true, header: plain.ok ? plain.header : undefined, records: log, problems: [] })
    const cipher = new SegmentCipher('correct horse battery staple')
    const sealed = encodeSegment('segment', 'laptop', 1, log, cipher)
    assert.ok(!sealed.toString('utf8').includes('7801'), 'no value in clear')
    const opened = decodeSegment(sealed, new SegmentCipher('correct horse battery staple'))
    assert.ok(opened.ok)
    assert.deepEqual(opened.records, log)
    // The same body under a header claiming another sequence number does not open.
    const text = sealed.toString('utf8')
    const header = JSON.parse(text.slice(0, text.indexOf('\n')))
    const moved = Buffer.from(`${JSON.stringify({ ...header, seq: 2 })}${text.slice(text.indexOf('\n'))}`)
    assert.deepEqual(decodeSegment(moved, cipher), {
      ok: false,
      reason: 'the passphrase does not open this file (or the file was altered after it was sealed)',
    })
  })

  it('gives every file its own key and salt while a writer pays the slow key derivation once', () => {
    const cipher = new SegmentCipher('correct horse battery staple')
    const headers = [1, 2].map((seq) => {
      const text = encodeSegment('segment', 'laptop', seq, records(), cipher).toString('utf8')
      return JSON.parse(text.slice(0, text.indexOf('\n'))).cipher
    })
    assert.equal(headers[0].kdf, 'scrypt+hkdf-sha256')
    assert.equal(headers[0].kdfSalt, headers[1].kdfSalt)
    assert.notEqual(headers[0].salt, headers[1].salt)
    assert.notEqual(headers[0].iv, headers[1].iv)
  })

  it('reports a wrong or missing passphrase in words', () => {
    const sealed = encodeSegment('segment', 'laptop', 1, records(), new SegmentCipher('right'))
    assert.deepEqual(decodeSegment(sealed, new SegmentCipher('wrong')), {
      ok: false,
      reason: 'the passphrase does not open this file (or the file was altered after it was sealed)',
    })
    assert.deepEqual(decodeSegment(sealed), {
      ok: false,
      reason: 'the file is encrypted and no sync passphrase is set on this machine',
    })
  })

  it('reads every whole record of a truncated file and says what is missing', () => {
    const bytes = encodeSegment('segment', 'laptop', 1, records())
    const cut = decodeSegment(bytes.subarray(0, bytes.length - 40))
    assert.ok(cut.ok)
    assert.equal(cut.records.length, 4)
    assert.deepEqual(cut.problems, ['the file is truncated or damaged: its header promises 5 records, 4 could be read'])
    assert.deepEqual(decodeSegment(bytes.subarray(0, 30)), {
      ok: false,
      reason: 'the file is truncated before the end of its header',
    })
    assert.deepEqual(decodeSegment(Buffer.alloc(0)), { ok: false, reason: 'the file is empty' })
    const sealed = encodeSegment('segment', 'laptop', 1, records(), new SegmentCipher('right'))
    assert.deepEqual(decodeSegment(sealed.subarray(0, sealed.length - 10), new SegmentCipher('right')), {
      ok: false,
      reason: 'the encrypted file is truncated or damaged (its body does not match its checksum)',
    })
  })

  it('skips a damaged record, an invalid one and a foreign one alone, naming each', () => {
    const log = records()
    const lines = encodeSegment('segment', 'laptop', 1, log).toString('utf8').split('\n')
    lines[2] = (lines[2] ?? '').replace('7801', '7891')
    lines[3] = recordLine({ ...log[2]!, device: 'desktop' } as ChangeRecord).trimEnd()
    lines[4] = recordLine({ ...log[3]!, kind: 'teleport' } as unknown as ChangeRecord).trimEnd()
    const read = decodeSegment(Buffer.from(lines.join('\n')))
    assert.ok(read.ok)
    assert.deepEqual(
      read.records.map((record) => record.op),
      [log[0]!.op, log[4]!.op],
    )
    assert.equal(read.problems[1], 'record 2: its checksum does not match (the line is damaged); skipped')
    assert.match(read.problems[2] ?? '', /^record 3: /u)
    assert.match(read.problems[3] ?? '', /^record 4: kind/u)
  })
})

describe('the sync folder', () => {
  let root: string
  beforeEach(() => {
    root = tempDir('fact-memory-sync-')
  })
  afterEach(() => removeDir(root))

  it('lets each device write only its own sealed files, and read the others after a cursor', async () => {
    const laptop = deviceWith('laptop', 6)
    const desktop = deviceWith('desktop', 3)
    const a = await openFolder(root, 'laptop')
    const b = await openFolder(root, 'desktop')
    await a.append(laptop.log.slice(0, 4))
    await b.append(desktop.log)
    const before = snapshotTree(join(root, 'devices', 'desktop'))
    await a.append(laptop.log.slice(4))
    assert.deepEqual(
      snapshotTree(join(root, 'devices', 'desktop')),
      before,
      "the laptop never touched the desktop's files",
    )
    assert.deepEqual(readdirSync(join(root, 'devices', 'laptop', 'segments')), ['0000000001.seg', '0000000002.seg'])
    assert.deepEqual(await b.others(), [{ device: 'laptop', name: 'laptop machine' }])

    const first = await b.readPending({})
    assert.deepEqual(
      first.records.map((record) => record.op),
      laptop.log.map((record) => record.op),
    )
    assert.deepEqual(first.cursor, { laptop: 2 })
    assert.deepEqual(first.problems, [])
    await a.append(deviceWith('laptop', 8).log.slice(6))
    const second = await b.readPending(first.cursor)
    assert.equal(second.files, 1)
    assert.deepEqual(second.cursor, { laptop: 3 })
    assert.equal((await b.readPending(second.cursor)).files, 0, 'a quiet sync reads nothing')
  })

  it("never reads another device's half-written .tmp- file as a segment, and never rewrites a sealed file", async () => {
    const laptop = deviceWith('laptop', 6)
    const a = await openFolder(root, 'laptop')
    const b = await openFolder(root, 'desktop')
    await a.append(laptop.log.slice(0, 2))
    const segments = join(root, 'devices', 'laptop', 'segments')
    // The laptop's next segment caught half written (a killed process, a sync tool copying mid-write): its bytes are
    // a real segment's first half, under a temporary name, one even ending in the final extension.
    const next = encodeSegment('segment', 'laptop', 2, laptop.log.slice(2, 4))
    const half = next.subarray(0, Math.floor(next.length / 2))
    writeFileSync(join(segments, '.tmp-0000000002.seg-4242-0a0b0c0d'), half)
    writeFileSync(join(segments, '.tmp-0000000002.seg'), half)
    const read = await b.readPending({})
    assert.deepEqual(
      read.records.map((record) => record.op),
      laptop.log.slice(0, 2).map((record) => record.op),
    )
    assert.deepEqual(read.cursor, { laptop: 1 })
    assert.deepEqual(read.problems, [], 'a temporary file is no damaged segment')

    // Sealing takes the next free number and leaves every sealed file (and the stray temporary ones) as it was.
    const sealed = snapshotTree(segments)
    await a.append(laptop.log.slice(2, 4))
    await a.append(laptop.log.slice(4))
    const after = snapshotTree(segments)
    for (const [file, bytes] of sealed) assert.equal(after.get(file), bytes, `${file} was rewritten`)
    assert.deepEqual(
      readdirSync(segments)
        .filter((name) => !sealed.has(`/${name}`))
        .sort(),
      ['0000000002.seg', '0000000003.seg'],
    )
    const rest = await b.readPending(read.cursor)
    assert.deepEqual(
      rest.records.map((record) => record.op),
      laptop.log.slice(2).map((record) => record.op),
    )
    assert.deepEqual(rest.problems, [])
  })

  it('keeps the cursor before a damaged segment, reads what follows, and passes it once healed', async () => {
    const laptop = deviceWith('laptop', 6)
    const a = await openFolder(root, 'laptop')
    const b = await openFolder(root, 'desktop')
    await a.append(laptop.log.slice(0, 2))
    await a.append(laptop.log.slice(2, 4))
    await a.append(laptop.log.slice(4))
    const damaged = join(root, 'devices', 'laptop', 'segments', '0000000002.seg')
    const whole = readFileSync(damaged)
    writeFileSync(damaged, whole.subarray(0, whole.length - 25))
    const read = await b.readPending({}, () => 'laptop machine')
    assert.deepEqual(read.cursor, { laptop: 1 })
    assert.deepEqual(read.records.length, 5)
    assert.equal(
      read.problems[0],
      'laptop machine: devices/laptop/segments/0000000002.seg: the file is truncated or damaged: its header promises 2 records, 1 could be read',
    )
    writeFileSync(damaged, whole)
    const healed = await b.readPending(read.cursor)
    assert.deepEqual(healed.problems, [])
    assert.deepEqual(healed.cursor, { laptop: 3 })
  })

  it("compacts a device's segments into a snapshot that a late reader starts from, and a reader mid-way resumes", async () => {
    const laptop = deviceWith('laptop', 6)
    laptop.pin(slot('svc-0'), '7800', '2026-03-01T10:00:00.000Z')
    laptop.pin(slot('svc-0'), '7800', null)
    const a = await openFolder(root, 'laptop')
    const b = await openFolder(root, 'desktop')
    await a.append(laptop.log.slice(0, 3))
    const early = await b.readPending({})
    await a.append(laptop.log.slice(3))
    const log = compactLog(laptop.log)
    assert.equal(log.length, laptop.log.length - 1, 'the pin its own unpin overrides is left out')
    assert.deepEqual(mergeRecords(log), mergeRecords(laptop.log))
    const compacted = await a.compact(log)
    assert.deepEqual(compacted, {
      snapshot: { device: 'laptop', kind: 'snapshot', seq: 2, file: 'devices/laptop/snapshots/0000000002.snap' },
      removed: 2,
    })
    assert.deepEqual(readdirSync(join(root, 'devices', 'laptop', 'segments')), [])
    const late = await b.readPending({})
    assert.deepEqual(late.records, log)
    assert.deepEqual(late.cursor, { laptop: 2 })
    const resumed = await b.readPending(early.cursor)
    assert.deepEqual(mergeRecords([...early.records, ...resumed.records]), mergeRecords(laptop.log))
    await a.append(deviceWith('laptop', 7).log.slice(6))
    assert.deepEqual((await b.readPending(late.cursor)).cursor, { laptop: 3 })
  })

  it("reads another device's encrypted files with the shared passphrase and reports a wrong one without stopping", async () => {
    const a = await openFolder(root, 'laptop', new SegmentCipher('shared secret'))
    await a.append(deviceWith('laptop', 2).log)
    const c = await openFolder(root, 'container')
    await c.append(deviceWith('container', 1).log)
    const good = await openFolder(root, 'desktop', new SegmentCipher('shared secret'))
    assert.equal((await good.readPending({})).records.length, 3)
    const wrong = await openFolder(root, 'phone', new SegmentCipher('guess'))
    const read = await wrong.readPending({})
    assert.equal(read.records.length, 1, 'the plain device is still read')
    assert.deepEqual(read.problems, [
      'laptop: devices/laptop/segments/0000000001.seg: the passphrase does not open this file (or the file was altered after it was sealed)',
    ])
    assert.deepEqual(read.cursor, { container: 1 })
  })

  it('knows its own newest clock and that its files are encrypted when it opens them without the passphrase', async () => {
    const laptop = deviceWith('laptop', 3)
    const sealed = await openFolder(root, 'laptop', new SegmentCipher('shared secret'))
    await sealed.append(laptop.log)
    // The same device after a restart that could not read its passphrase yet: the headers say enough.
    const reopened = await openFolder(root, 'laptop')
    assert.equal(await reopened.ownHighWater(), laptop.log.at(-1)?.hlc, 'a sealed segment is not sent twice')
    assert.equal(await reopened.ownSealing(), 'encrypted')
    const plain = await openFolder(root, 'desktop')
    assert.equal(await plain.ownSealing(), 'none', 'no file yet')
    await plain.append(deviceWith('desktop', 1).log)
    assert.equal(await plain.ownSealing(), 'plain')
  })

  it('refuses a folder that holds other files, and leaves them alone', async () => {
    writeFileSync(join(root, 'notes.txt'), 'mine')
    const opened = await SyncFolder.open(root, 'laptop', 'laptop', undefined, NOW)
    assert.equal(opened.ok, false)
    assert.deepEqual(readdirSync(root), ['notes.txt'])
  })
})
