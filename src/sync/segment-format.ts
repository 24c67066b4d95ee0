/**
 * The segment file format: a header line (format, version, device, sequence number, the range of clocks, the record
 * count and a SHA-256 of the body as stored), then the body. A plain body holds one line per record, `<16 hex> <json>`,
 * the hex being the start of the SHA-256 of the JSON text, so one damaged record is found and skipped alone. An
 * encrypted body is one base64 line of the plain body sealed by `SegmentCipher`. Reading never throws: a truncated
 * file, a damaged or invalid record, a missing or wrong passphrase each come back as a sentence, with every record
 * that could still be read. UTF-8, LF endings.
 */
import { createHash } from 'node:crypto'
import { parseChangeRecord } from './change-record.schema.ts'
import type { ChangeRecord } from './change-record.ts'
import type { CipherParams, SegmentCipher } from './segment-cipher.ts'
import { parseSegmentHeader } from './segment-header.schema.ts'
import { SEGMENT_FORMAT, SEGMENT_FORMAT_VERSION, type SegmentHeader } from './segment-header.ts'

/** What a reader got from one file. */
export type SegmentRead =
  | {
      readonly ok: true
      readonly header: SegmentHeader
      /** Every record that could be read, in file order. */
      readonly records: readonly ChangeRecord[]
      /** Sentences for each problem met (a truncated file, a skipped record); empty for a clean file. */
      readonly problems: readonly string[]
    }
  | { readonly ok: false; readonly reason: string }

/**
 * Encode a segment or snapshot.
 * @param kind - segment or snapshot.
 * @param device - the writing device (every record must be its own).
 * @param seq - see {@link SegmentHeader.seq}.
 * @param records - the records, in clock order.
 * @param cipher - encrypts the body when given.
 * @returns the file's bytes.
 */
export function encodeSegment(
  kind: SegmentHeader['kind'],
  device: string,
  seq: number,
  records: readonly ChangeRecord[],
  cipher?: SegmentCipher,
): Buffer {
  const foreign = records.find((record) => record.device !== device)
  if (foreign !== undefined) throw new TypeError(`record ${foreign.op} belongs to ${foreign.device}, not ${device}`)
  const plain = Buffer.from(records.map(recordLine).join(''), 'utf8')
  const fields: Omit<SegmentHeader, 'bodySha256' | 'cipher'> = {
    format: SEGMENT_FORMAT,
    version: SEGMENT_FORMAT_VERSION,
    kind,
    device,
    seq,
    firstHlc: records[0]?.hlc ?? null,
    lastHlc: records.at(-1)?.hlc ?? null,
    count: records.length,
  }
  let body = plain
  let params: CipherParams | null = null
  if (cipher !== undefined) {
    const sealed = cipher.seal(plain, additionalData(fields))
    body = Buffer.from(`${sealed.cipher.toString('base64')}\n`, 'utf8')
    params = sealed.params
  }
  const header: SegmentHeader = { ...fields, bodySha256: sha256(body), cipher: params }
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`, 'utf8'), body])
}

/**
 * Read a segment or snapshot.
 * @param bytes - the file's bytes.
 * @param cipher - opens an encrypted body; a plain file needs none.
 * @returns the header and records with the problems met, or the one reason nothing could be read.
 */
export function decodeSegment(bytes: Buffer, cipher?: SegmentCipher): SegmentRead {
  const read = readSegmentHeader(bytes)
  if (!read.ok) return read
  const { header, end } = read
  const body = bytes.subarray(end + 1)
  const intact = sha256(body) === header.bodySha256
  let plain = body
  if (header.cipher !== null) {
    if (!intact)
      return { ok: false, reason: 'the encrypted file is truncated or damaged (its body does not match its checksum)' }
    if (cipher === undefined)
      return { ok: false, reason: 'the file is encrypted and no sync passphrase is set on this machine' }
    const opened = cipher.open(
      Buffer.from(body.toString('utf8').trim(), 'base64'),
      header.cipher,
      additionalData(header),
    )
    if (!opened.ok) return { ok: false, reason: opened.reason }
    plain = opened.plain
  }
  const problems: string[] = []
  const records: ChangeRecord[] = []
  const lines = plain.toString('utf8').split('\n')
  // A complete body ends with a line break, so its last piece is empty; a missing one is a cut-off last record.
  const complete = lines.pop() === ''
  lines.forEach((line, index) => {
    const read = readRecordLine(line, header.device)
    if (read.ok) records.push(read.record)
    else problems.push(`record ${index + 1}: ${read.reason}; skipped`)
  })
  if (!intact || !complete || lines.length !== header.count) {
    problems.unshift(
      `the file is truncated or damaged: its header promises ${header.count} record${header.count === 1 ? '' : 's'}, ${records.length} could be read`,
    )
  }
  return { ok: true, header, records, problems }
}

/**
 * Read a file's header alone: it is never encrypted, so it says which clocks a file holds and whether it is sealed
 * with a passphrase even to a reader without one.
 * @param bytes - the file's bytes (its first line is enough).
 * @returns the header and the offset of its line break, or why it cannot be read.
 */
export function readSegmentHeader(
  bytes: Buffer,
):
  | { readonly ok: true; readonly header: SegmentHeader; readonly end: number }
  | { readonly ok: false; readonly reason: string } {
  const end = bytes.indexOf(0x0a)
  if (end < 0)
    return {
      ok: false,
      reason: bytes.length === 0 ? 'the file is empty' : 'the file is truncated before the end of its header',
    }
  let json: unknown
  try {
    json = JSON.parse(bytes.subarray(0, end).toString('utf8'))
  } catch {
    return { ok: false, reason: 'the header line is not JSON' }
  }
  const parsed = parseSegmentHeader(json)
  if (!parsed.ok) return { ok: false, reason: `the header is not a segment header (${parsed.reason})` }
  return { ok: true, header: parsed.header, end }
}

/**
 * One record as a body line.
 * @param record - the record.
 * @returns `<16 hex> <json>\n`.
 */
export function recordLine(record: ChangeRecord): string {
  const json = JSON.stringify(record)
  return `${sha256(Buffer.from(json, 'utf8')).slice(0, 16)} ${json}\n`
}

function readRecordLine(
  line: string,
  device: string,
): { ok: true; record: ChangeRecord } | { ok: false; reason: string } {
  const space = line.indexOf(' ')
  const check = line.slice(0, space)
  const json = line.slice(space + 1)
  if (space !== 16 || sha256(Buffer.from(json, 'utf8')).slice(0, 16) !== check)
    return { ok: false, reason: 'its checksum does not match (the line is damaged)' }
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch {
    return { ok: false, reason: 'it is not JSON' }
  }
  const parsed = parseChangeRecord(value)
  if (!parsed.ok) return parsed
  if (parsed.record.device !== device)
    return { ok: false, reason: `it names device "${parsed.record.device}" in a file of "${device}"` }
  return parsed
}

/** The header fields an encrypted body is bound to. */
function additionalData(
  fields: Pick<SegmentHeader, 'format' | 'version' | 'kind' | 'device' | 'seq' | 'firstHlc' | 'lastHlc' | 'count'>,
): string {
  return [
    fields.format,
    fields.version,
    fields.kind,
    fields.device,
    fields.seq,
    fields.firstHlc,
    fields.lastHlc,
    fields.count,
  ].join('|')
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex')
}
