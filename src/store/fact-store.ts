/**
 * FactStore: the front door of the fact store, composed of small parts over one open database, each with one role
 * and each built once: reading (FactReader), the slot transitions (FactSlots), the write path (FactWriter),
 * forgetting (FactForgetting), the time and conflict corrections and index upkeep (FactCorrections), accepted review
 * cards (CurationStore), the user's renames (RenameStore) and moves between scopes (ScopeStore). A part receives the
 * parts it uses through its constructor; no part extends another. The facts' everyday reads and writes are answered
 * here by the part that owns them; curation, renames and scopes are reached as the parts themselves. Every part
 * sends its statements through the one database, so they share its connection and its prepared statements.
 */
import { CurationStore } from './curation-store.ts'
import type { Database } from './database.ts'
import { FactCorrections } from './fact-corrections.ts'
import { FactForgetting } from './fact-forgetting.ts'
import { FactReader } from './fact-reader.ts'
import { FactSlots } from './fact-slots.ts'
import { FactWriter } from './fact-writer.ts'
import { RenameStore } from './rename-store.ts'
import { ScopeStore } from './scope-store.ts'
import { SyncRecorder } from './sync-recorder.ts'

/**
 * The fact store's reads and nothing else, as a shape: what retrieval and recall are handed. Both the front door and
 * its reader part hold it, so a search can never write.
 */
export type FactReads = { readonly [K in keyof FactReader]: FactReader[K] }

/** Synchronous reads and writes over facts and their satellites, under the slot rules, through its parts. */
export class FactStore implements FactReads {
  readonly reader: FactReader
  /** The slot transitions: each runs inside the caller's transaction, so only the parts call them. */
  readonly slots: FactSlots
  readonly writer: FactWriter
  readonly forgetting: FactForgetting
  readonly corrections: FactCorrections
  /** The writes of accepted review cards (merge, retire, fold, alias). */
  readonly curation: CurationStore
  /** The user's renames and merges of subjects and properties, and the aliases they leave. */
  readonly renames: RenameStore
  /** Moves of facts between scopes. */
  readonly scopes: ScopeStore

  // Reads (FactReader).
  readonly getFacts: FactReader['getFacts']
  readonly matchText: FactReader['matchText']
  readonly matchCues: FactReader['matchCues']
  readonly newestMatchStart: FactReader['newestMatchStart']
  readonly termDocumentCounts: FactReader['termDocumentCounts']
  readonly indexedFactCount: FactReader['indexedFactCount']
  readonly currentFactCount: FactReader['currentFactCount']
  readonly restatementRows: FactReader['restatementRows']
  readonly matchIdentifiers: FactReader['matchIdentifiers']
  readonly slotHistory: FactReader['slotHistory']
  readonly factsDatedWithin: FactReader['factsDatedWithin']
  readonly knownEntities: FactReader['knownEntities']
  readonly namedEntities: FactReader['namedEntities']
  readonly slotValueCounts: FactReader['slotValueCounts']
  readonly directoryFacts: FactReader['directoryFacts']
  readonly projectDirectoryFacts: FactReader['projectDirectoryFacts']
  readonly currentProjectFacts: FactReader['currentProjectFacts']
  readonly countDirectoryFacts: FactReader['countDirectoryFacts']
  readonly scopesOf: FactReader['scopesOf']
  readonly contestedSlots: FactReader['contestedSlots']
  readonly counts: FactReader['counts']

  // The write path (FactWriter).
  readonly write: FactWriter['write']
  readonly canonical: FactWriter['canonical']
  readonly classify: FactWriter['classify']
  readonly restoreHistory: FactWriter['restoreHistory']
  readonly hasHistory: FactWriter['hasHistory']

  // Forgetting (FactForgetting).
  readonly forgetById: FactForgetting['forgetById']
  readonly forgetBySubject: FactForgetting['forgetBySubject']
  readonly currentWithClaimOf: FactForgetting['currentWithClaimOf']

  // Corrections and upkeep (FactCorrections).
  readonly advance: FactCorrections['advance']
  readonly markConfirmedByUser: FactCorrections['markConfirmedByUser']
  readonly expireFact: FactCorrections['expireFact']
  readonly reviseWindow: FactCorrections['reviseWindow']
  readonly reviseCues: FactCorrections['reviseCues']
  readonly resolveGroup: FactCorrections['resolveGroup']
  readonly supersedeAcrossSlots: FactCorrections['supersedeAcrossSlots']
  readonly rebuildIndexes: FactCorrections['rebuildIndexes']
  readonly wipe: FactCorrections['wipe']

  /** @param db - an open, migrated database; every part is built over it once. */
  constructor(db: Database) {
    const reader = new FactReader(db)
    const slots = new FactSlots(db, reader)
    const recorder = new SyncRecorder(db)
    const writer = new FactWriter(db, reader, slots, recorder)
    const forgetting = new FactForgetting(db, reader, slots, recorder)
    const corrections = new FactCorrections(db, reader, slots, recorder)
    const curation = new CurationStore(db, reader, slots, recorder)
    this.reader = reader
    this.slots = slots
    this.writer = writer
    this.forgetting = forgetting
    this.corrections = corrections
    this.curation = curation
    this.renames = new RenameStore(db, curation)
    this.scopes = new ScopeStore(db, reader, recorder)

    this.getFacts = reader.getFacts.bind(reader)
    this.matchText = reader.matchText.bind(reader)
    this.matchCues = reader.matchCues.bind(reader)
    this.newestMatchStart = reader.newestMatchStart.bind(reader)
    this.termDocumentCounts = reader.termDocumentCounts.bind(reader)
    this.indexedFactCount = reader.indexedFactCount.bind(reader)
    this.currentFactCount = reader.currentFactCount.bind(reader)
    this.restatementRows = reader.restatementRows.bind(reader)
    this.matchIdentifiers = reader.matchIdentifiers.bind(reader)
    this.slotHistory = reader.slotHistory.bind(reader)
    this.factsDatedWithin = reader.factsDatedWithin.bind(reader)
    this.knownEntities = reader.knownEntities.bind(reader)
    this.namedEntities = reader.namedEntities.bind(reader)
    this.slotValueCounts = reader.slotValueCounts.bind(reader)
    this.directoryFacts = reader.directoryFacts.bind(reader)
    this.projectDirectoryFacts = reader.projectDirectoryFacts.bind(reader)
    this.currentProjectFacts = reader.currentProjectFacts.bind(reader)
    this.countDirectoryFacts = reader.countDirectoryFacts.bind(reader)
    this.scopesOf = reader.scopesOf.bind(reader)
    this.contestedSlots = reader.contestedSlots.bind(reader)
    this.counts = reader.counts.bind(reader)

    this.write = writer.write.bind(writer)
    this.canonical = writer.canonical.bind(writer)
    this.classify = writer.classify.bind(writer)
    this.restoreHistory = writer.restoreHistory.bind(writer)
    this.hasHistory = writer.hasHistory.bind(writer)

    this.forgetById = forgetting.forgetById.bind(forgetting)
    this.forgetBySubject = forgetting.forgetBySubject.bind(forgetting)
    this.currentWithClaimOf = forgetting.currentWithClaimOf.bind(forgetting)

    this.advance = corrections.advance.bind(corrections)
    this.markConfirmedByUser = corrections.markConfirmedByUser.bind(corrections)
    this.expireFact = corrections.expireFact.bind(corrections)
    this.reviseWindow = corrections.reviseWindow.bind(corrections)
    this.reviseCues = corrections.reviseCues.bind(corrections)
    this.resolveGroup = corrections.resolveGroup.bind(corrections)
    this.supersedeAcrossSlots = corrections.supersedeAcrossSlots.bind(corrections)
    this.rebuildIndexes = corrections.rebuildIndexes.bind(corrections)
    this.wipe = corrections.wipe.bind(corrections)
  }
}

// What is said above the store about the parts' answers is imported from here, never from a part's own file.
export { toFact } from './fact-rows.ts'
export type { ChannelHit, FactReader, NamedEntity, RankBounds, StoreCounts, Visibility } from './fact-reader.ts'
export type { Classification, StagedRow, WriteResult } from './fact-writer.ts'
export type { SubjectForget } from './fact-forgetting.ts'
export type { CurationOutcome, CurationStore, KeysOf, MoveCounts } from './curation-store.ts'
export type { RenameStore, RenameValue } from './rename-store.ts'
export type { MoveOutcome, ScopeKeysOf, ScopeStore, ScopeTarget } from './scope-store.ts'
