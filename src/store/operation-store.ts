/** OperationStore: receipts of fenced operations, keyed by the caller's operation id. */
import type { Database } from './database.ts'

/** A stored receipt. */
export interface OperationRecord {
  readonly operationId: string
  readonly verb: string
  readonly payloadSha256: string
  readonly receipt: Record<string, unknown>
}

/** Synchronous CRUD over operation receipts. */
export class OperationStore {
  private readonly db: Database

  /** @param db - an open, migrated database. */
  constructor(db: Database) {
    this.db = db
  }

  /**
   * The receipt of an operation id, if one was recorded.
   * @param operationId - the caller's id.
   * @returns the record, or undefined.
   */
  find(operationId: string): OperationRecord | undefined {
    const row = this.db.get(
      'SELECT operation_id, verb, payload_sha256, receipt FROM operations WHERE operation_id = ?',
      operationId,
    )
    if (row === undefined) return undefined
    return {
      operationId: String(row['operation_id']),
      verb: String(row['verb']),
      payloadSha256: String(row['payload_sha256']),
      receipt: JSON.parse(String(row['receipt'])) as Record<string, unknown>,
    }
  }

  /**
   * Record a receipt; call inside the operation's own transaction so a rolled-back operation leaves none.
   * @param record - the receipt to keep.
   * @param now - ISO instant.
   */
  record(record: OperationRecord, now: string): void {
    this.db.run(
      'INSERT INTO operations (operation_id, verb, payload_sha256, receipt, created_at) VALUES (?, ?, ?, ?, ?)',
      record.operationId,
      record.verb,
      record.payloadSha256,
      JSON.stringify(record.receipt),
      now,
    )
  }
}
