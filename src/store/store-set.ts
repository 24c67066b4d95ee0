/** The stores over one open database, created together when the store opens. */
import type { Database } from './database.ts'
import { AuditStore } from './audit-store.ts'
import { CalibrationStore } from './calibration-store.ts'
import { EditStore } from './edit-store.ts'
import { ExchangeStore } from './exchange-store.ts'
import { ExtractStore } from './extract-store.ts'
import { FactStore } from './fact-store.ts'
import { GraphStore } from './graph-store.ts'
import { LibraryStore } from './library-store.ts'
import { MetaStore } from './meta-store.ts'
import { OperationStore } from './operation-store.ts'
import { PauseStore } from './pause-store.ts'
import { PinStore } from './pin-store.ts'
import { PrivacyStore } from './privacy-store.ts'
import { ProjectRekeyStore } from './project-rekey.ts'
import { ProposalStore } from './proposal-store.ts'
import { RecallStore } from './recall-store.ts'
import { ReviewStore } from './review-store.ts'
import { VectorStore } from './vector-store.ts'
import { SyncLogStore } from './sync-log-store.ts'
import { TeamStore } from './team-store.ts'

/** Every store over one database. */
export interface StoreSet {
  readonly db: Database
  readonly dataDir: string
  /** The fact store's front door: its reads and writes, and its curation, renames and scopes parts. */
  readonly facts: FactStore
  /** Moves of projects from folder keys (older versions) to repository keys. */
  readonly projectRekeys: ProjectRekeyStore
  readonly library: LibraryStore
  readonly edits: EditStore
  readonly operations: OperationStore
  /** The user's pins: which facts lead the directory. */
  readonly pins: PinStore
  readonly meta: MetaStore
  /** The rescan of stored facts under today's privacy rules. */
  readonly privacy: PrivacyStore
  readonly proposals: ProposalStore
  readonly exchange: ExchangeStore
  readonly graph: GraphStore
  readonly extract: ExtractStore
  /** The health check's reads and its ledger of runs. */
  readonly audit: AuditStore
  /** The near-duplicate review: its candidates, remembered verdicts and ledger of sweeps. */
  readonly review: ReviewStore
  /** The ledger of rerank calibrations and the facts a library calibration reads. */
  readonly calibrations: CalibrationStore
  /** The vector spaces and the quantized fact vectors of the semantic channel. */
  readonly vectors: VectorStore
  /** The ledger of per-turn recall: what each user message was given and what it cost. */
  readonly recalls: RecallStore
  /** The sessions the user paused memory in. */
  readonly pauses: PauseStore
  /** The sync log: this device, its own change records, the records read from other devices and the cursor. */
  readonly sync: SyncLogStore
  /** Team memory: which projects share their facts through their repository, and the team log. */
  readonly team: TeamStore
}

/**
 * What code above the store may do with the open database itself: read its generation, id and driver, run work in
 * one transaction (or in slices), copy it. It sends no SQL: statements are the stores' own.
 */
export type StoreHandle = Pick<
  Database,
  'driver' | 'generation' | 'storeId' | 'transaction' | 'transactionInSlices' | 'backup'
>

/** The stores as the management verbs are handed them: every store, and the database only as a {@link StoreHandle}. */
export type OpenStores = Omit<StoreSet, 'db'> & { readonly db: StoreHandle }

/**
 * Build the stores over an open database.
 * @param db - the open, migrated database.
 * @param dataDir - its data directory.
 * @returns the set.
 */
export function createStoreSet(db: Database, dataDir: string): StoreSet {
  const facts = new FactStore(db)
  const pins = new PinStore(db)
  const sync = new SyncLogStore(db, { writer: facts.writer, forgetting: facts.forgetting, slots: facts.slots, pins })
  return {
    db,
    dataDir,
    facts,
    projectRekeys: new ProjectRekeyStore(db),
    library: new LibraryStore(db),
    edits: new EditStore(db),
    operations: new OperationStore(db),
    pins,
    meta: new MetaStore(db),
    privacy: new PrivacyStore(db),
    proposals: new ProposalStore(db),
    exchange: new ExchangeStore(db),
    graph: new GraphStore(db),
    extract: new ExtractStore(db),
    audit: new AuditStore(db),
    review: new ReviewStore(db),
    calibrations: new CalibrationStore(db),
    vectors: new VectorStore(db),
    recalls: new RecallStore(db),
    pauses: new PauseStore(db),
    sync,
    team: new TeamStore(db, sync),
  }
}
