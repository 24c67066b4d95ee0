/** The segment file header: its format name, version and fields (segment-format.ts reads and writes it). Types and constants only. */
import type { CipherParams } from './segment-cipher.ts'

/** The format name on a segment's header line. */
export const SEGMENT_FORMAT = 'dsh-fact-memory.sync-segment'

/** The segment format version this plugin writes and reads. */
export const SEGMENT_FORMAT_VERSION = 1

/** A segment's first line. */
export interface SegmentHeader {
  readonly format: typeof SEGMENT_FORMAT
  readonly version: typeof SEGMENT_FORMAT_VERSION
  /** A segment holds the records appended since the previous one; a snapshot holds the device's whole log up to `seq`. */
  readonly kind: 'segment' | 'snapshot'
  readonly device: string
  /** A segment's sequence number, or the last segment a snapshot covers. */
  readonly seq: number
  /** Smallest and largest record clock; null when the file holds no record. */
  readonly firstHlc: string | null
  readonly lastHlc: string | null
  readonly count: number
  /** SHA-256 (hex) of every byte after the header line. */
  readonly bodySha256: string
  readonly cipher: CipherParams | null
}
