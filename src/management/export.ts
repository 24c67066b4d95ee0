/**
 * The export verb: an optional backup, then every non-forgotten fact, history included, every lasting alias, and the
 * tombstones of the forgotten ones (hashes only), written atomically to `<dataDir>/exports/facts-<timestamp>.jsonl`
 * under a manifest that hashes the records (see import.ts for the way back), or with `format: "markdown"` to
 * `<dataDir>/exports/library-<timestamp>.md`, a document to read and share (sensitive values withheld unless
 * `includeSensitive`).
 */
import { randomBytes } from 'node:crypto'
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { Fact } from '../types.ts'
import {
  aliasRecordOf,
  EXCHANGE_FORMAT,
  EXCHANGE_FORMAT_VERSION,
  manifestLine,
  recordLine,
  recordOf,
  RecordsHasher,
  tombstoneLine,
  type ExchangeManifest,
} from '../exchange/jsonl.ts'
import { libraryDocument } from '../exchange/markdown.ts'
import { confinePath } from '../exchange/paths.ts'
import { ok, refuse, verb } from './verb.ts'
import type { OpenStores } from '../store/store-set.ts'
import { takeBackup, type BackupReceipt } from './backups.ts'
import { errorCode } from './import.ts'

/** Where exports go, under the data directory. */
export const EXPORT_DIR = 'exports'
/** Bytes buffered before each write. */
const WRITE_CHUNK = 1024 * 1024

/** export: an optional backup, then every non-forgotten fact, history included, as one JSONL file. */
export const exportVerb = verb('export', {
  async run(body, context) {
    const { stores, config } = context
    const now = context.now()
    try {
      mkdirSync(join(stores.dataDir, EXPORT_DIR), { recursive: true, mode: 0o700 })
    } catch (error) {
      return refuse('storage_unavailable', `cannot create ${EXPORT_DIR}/ in the data directory (${errorCode(error)})`)
    }
    const confined = confinePath(stores.dataDir, EXPORT_DIR)
    if (!confined.ok) return refuse('invalid_path', `${EXPORT_DIR}/: ${confined.reason}`)
    const dir = confined.path
    const backup: BackupReceipt | null =
      (body.backup ?? config.backupBeforeExport) ? await takeBackup(stores, 'export', now, config.backupKeep) : null
    if (body.format === 'markdown') {
      const name = exportName(dir, now, 'library', 'md')
      try {
        const facts: Fact[] = []
        const snapshot = stores.exchange.readSnapshot((read) => {
          read.eachFact((fact) => {
            facts.push(fact)
          })
          return { generation: read.generation }
        })
        const document = libraryDocument(facts, {
          now,
          timeZone: config.displayTimeZone,
          includeSensitive: body.includeSensitive ?? false,
        })
        writeAtomically(dir, name, (fd) => {
          writeAll(fd, document.text)
        })
        return ok({
          format: 'markdown',
          path: join(dir, name),
          relativePath: `${EXPORT_DIR}/${name}`,
          facts: document.facts,
          subjects: document.subjects,
          withheld: document.withheld,
          generation: snapshot.generation,
          backup,
        })
      } catch (error) {
        return refuse('storage_unavailable', `could not write ${EXPORT_DIR}/${name} (${errorCode(error)})`)
      }
    }
    const name = exportName(dir, now, 'facts', 'jsonl')
    let manifest: ExchangeManifest
    try {
      manifest = writeExport(stores, dir, name, now)
    } catch (error) {
      return refuse('storage_unavailable', `could not write ${EXPORT_DIR}/${name} (${errorCode(error)})`)
    }
    return ok({
      format: 'jsonl',
      path: join(dir, name),
      relativePath: `${EXPORT_DIR}/${name}`,
      records: manifest.records,
      recordsSha256: manifest.records_sha256,
      aliases: manifest.aliases,
      tombstones: manifest.tombstones,
      storeId: manifest.storeId,
      generation: manifest.generation,
      backup,
    })
  },
})

/** `<kind>-<timestamp>.<extension>`, with a counter when an export of the same instant already exists. */
function exportName(dir: string, now: string, kind: string, extension: string): string {
  const stem = `${kind}-${now.replace(/[:.]/gu, '-')}`
  let name = `${stem}.${extension}`
  for (let n = 2; existsSync(join(dir, name)); n += 1) name = `${stem}-${n}.${extension}`
  return name
}

/**
 * Write the export to a temp file in the same directory and rename it into place. Both passes over the facts run
 * in one snapshot: the first hashes and counts the fact lines (records_sha256, as seed 000 defines it) and the alias
 * and tombstone lines apart, the second writes the manifest and the same lines.
 */
function writeExport(stores: OpenStores, dir: string, name: string, now: string): ExchangeManifest {
  let manifest: ExchangeManifest | undefined
  writeAtomically(dir, name, (fd) => {
    manifest = stores.exchange.readSnapshot((snapshot) => {
      const facts = new RecordsHasher()
      snapshot.eachFact((fact) => facts.add(recordLine(recordOf(fact))))
      // The lasting aliases follow the facts, so an import keeps them (older files simply have none).
      const aliasLines = snapshot.aliases().map((alias) => recordLine(aliasRecordOf(alias)))
      const tombstoneLines = snapshot.tombstones().map(tombstoneLine)
      const aliases = hashed(aliasLines)
      const tombstones = hashed(tombstoneLines)
      const written: ExchangeManifest = {
        format: EXCHANGE_FORMAT,
        version: EXCHANGE_FORMAT_VERSION,
        storeId: snapshot.storeId,
        generation: snapshot.generation,
        exportedAt: now,
        records: facts.count,
        records_sha256: facts.digest(),
        aliases: aliases.count,
        aliases_sha256: aliases.sha256,
        tombstones: tombstones.count,
        tombstones_sha256: tombstones.sha256,
      }
      let buffer = `${manifestLine(written)}\n`
      snapshot.eachFact((fact) => {
        buffer += `${recordLine(recordOf(fact))}\n`
        if (buffer.length >= WRITE_CHUNK) {
          writeAll(fd, buffer)
          buffer = ''
        }
      })
      for (const line of aliasLines) buffer += `${line}\n`
      for (const line of tombstoneLines) buffer += `${line}\n`
      writeAll(fd, buffer)
      return written
    })
  })
  if (manifest === undefined) throw new Error('the export wrote no manifest')
  return manifest
}

/** The count and records hash of one kind of line. */
function hashed(lines: readonly string[]): { count: number; sha256: string } {
  const hasher = new RecordsHasher()
  for (const line of lines) hasher.add(line)
  return { count: hasher.count, sha256: hasher.digest() }
}

/**
 * Write a file under `dir` atomically: into a temp file beside it, synced, then renamed into place; nothing is left
 * behind when writing fails.
 */
function writeAtomically(dir: string, name: string, write: (fd: number) => void): void {
  const temp = join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`)
  const fd = openSync(temp, 'wx', 0o600)
  let open = true
  try {
    write(fd)
    fsyncSync(fd)
    closeSync(fd)
    open = false
    renameSync(temp, join(dir, name))
  } catch (error) {
    if (open) closeSync(fd)
    rmSync(temp, { force: true })
    throw error
  }
}

/** Write all of `text` as UTF-8; a regular file may accept fewer bytes than asked per call. */
function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8')
  for (let offset = 0; offset < bytes.byteLength; ) offset += writeSync(fd, bytes, offset, bytes.byteLength - offset)
}
