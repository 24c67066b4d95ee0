/**
 * The import verb: preview a JSONL file (each record classed new / duplicate / repeated / conflict / tombstoned /
 * invalid, nothing written) and answer a token bound to the file hash, the store id and the generation; the fenced
 * commit re-checks that token and applies every record in one transaction, or nothing. Reading, checking and
 * previewing a file run in slices that yield, and so does the commit, as one transaction whose writes other routes
 * wait for (they are refused as busy meanwhile, and read on); a file above IMPORT_FILE_LIMIT is refused with its size in
 * words. The commit is one edit: its Undo takes back what the file added, conflicts included, and what it forgot.
 *
 * Two kinds of file. Any file states what it believes, not what the user affirmed: records go through the normal
 * write path as origin import with evidence at most observed, a differing value enters the conflict queue, and past
 * values are skipped. A file this very store exported, whose lines still hash to its manifest, is the user's own
 * backup and is restored as it was: evidence is kept and past values come back as history, so an export, a wipe,
 * an import and a second export give equal records. A pin comes back only from the store's own export (import-plan.ts).
 * Alias lines are recorded before any fact line is written, so a line under an alias's name lands on the name it
 * stands for; tombstone lines next, forgetting the current facts they name (import-apply.ts), so the claims they name
 * stay refused and nothing current is one a write would refuse.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { bytesSha256, decodeUtf8 } from '../exchange/jsonl.ts'
import { confinePath } from '../exchange/paths.ts'
import { commitImport, previewImport } from './import-apply.ts'
import { planImport, readImportFile } from './import-plan.ts'
import { ok, refuse, runFencedInSlices, verb, type Refusal } from './verb.ts'
import type { ImportBody } from './wire.schema.ts'

export { PREVIEW_REASONS, PREVIEW_ROWS, type RecordClass } from './import-apply.ts'

/** The largest file an import takes, from the data directory or inline: 16 MiB. */
export const IMPORT_FILE_LIMIT = 16 * 1024 * 1024
/** import's body cap: a file at IMPORT_FILE_LIMIT plus room for the JSON around it. */
export const IMPORT_BODY_LIMIT = IMPORT_FILE_LIMIT + 1024 * 1024

/** Per-process key of preview tokens: a token cannot be forged from the three values it binds, nor outlive the process. */
const TOKEN_KEY = randomBytes(32)

/** import: `preview` classes a file's records and issues a token; `commit` applies them behind the fence. */
export const importVerb = verb('import', {
  bodyLimit: IMPORT_BODY_LIMIT,
  async run(body, context) {
    const { stores, config } = context
    const now = context.now()
    // The token binds the generation read before any slice, so a store that changes meanwhile makes the commit stale.
    const generation = stores.db.generation()
    const source = readSource(stores.dataDir, body)
    if (!source.ok) return source.refusal
    const read = await readImportFile(source.text)
    if (!read.ok) return refuse('invalid_arguments', read.reason)
    const { file } = read
    const storeId = stores.db.storeId()
    const ownExport = file.manifest !== null && file.manifest.storeId === storeId
    const restore = ownExport && file.untouched === true
    const plan = await planImport(file.entries, now, config, { restore, keepPins: ownExport })
    if (body.mode === 'preview') {
      const found = await previewImport(stores, file, plan)
      return ok({
        token: previewToken(source.sha256, storeId, generation),
        fileSha256: source.sha256,
        storeId,
        generation,
        source: { path: source.relativePath, bytes: source.bytes },
        manifest: file.manifest,
        untouched: file.untouched,
        restore,
        total: plan.length,
        counts: found.counts,
        records: found.records,
        invalid: found.invalid,
        invalidOmitted: found.counts.invalid - found.invalid.length,
        pinsDropped: found.pinsDropped,
        aliases: file.aliases.map((entry) => ({ line: entry.line, ...entry.alias })),
        tombstones: found.tombstones,
      })
    }
    return runFencedInSlices(stores, 'import', body, now, async (slice) => {
      const current = slice(() => stores.db.generation())
      if (
        current !== generation ||
        !sameToken(
          body.token,
          previewToken(
            source.sha256,
            slice(() => stores.db.storeId()),
            current,
          ),
        )
      ) {
        return refuse(
          'stale',
          'the preview no longer matches: the file, the store or its generation changed since; preview the import again',
          { stale: true, generation: current },
        )
      }
      const committed = await commitImport(stores, file, plan, now, slice)
      return ok({ total: plan.length, ...committed, restore })
    })
  },
})

/** The bytes of an import, from the data directory or inline. */
interface Source {
  readonly ok: true
  readonly sha256: string
  readonly text: string
  readonly bytes: number
  /** The confined path relative to the data directory, or null for inline content. */
  readonly relativePath: string | null
}

function readSource(dataDir: string, body: ImportBody): Source | { readonly ok: false; readonly refusal: Refusal } {
  let bytes: Buffer
  let relativePath: string | null = null
  if (body.content !== undefined) {
    bytes = Buffer.from(body.content, 'utf8')
    if (bytes.byteLength > IMPORT_FILE_LIMIT) return { ok: false, refusal: tooLarge(bytes.byteLength, 'the file') }
  } else {
    const confined = confinePath(dataDir, body.path ?? '')
    if (!confined.ok)
      return { ok: false, refusal: refuse('invalid_path', `${JSON.stringify(body.path ?? '')}: ${confined.reason}`) }
    relativePath = confined.relativePath
    try {
      const stat = statSync(confined.path)
      if (!stat.isFile()) return { ok: false, refusal: refuse('invalid_path', `${relativePath} is not a file`) }
      if (stat.size > IMPORT_FILE_LIMIT) return { ok: false, refusal: tooLarge(stat.size, `the file ${relativePath}`) }
      bytes = readFileSync(confined.path)
    } catch (error) {
      return {
        ok: false,
        refusal: refuse('not_found', `cannot read ${relativePath} in the data directory (${errorCode(error)})`),
      }
    }
  }
  const text = decodeUtf8(bytes)
  if (text === undefined) return { ok: false, refusal: refuse('invalid_arguments', 'the file is not valid UTF-8') }
  return { ok: true, sha256: bytesSha256(bytes), text, bytes: bytes.byteLength, relativePath }
}

/**
 * The refusal of a file above the import limit, its size and the limit in words.
 * @param bytes - the file's size.
 * @param name - how the file is named to the user.
 * @returns the refusal.
 */
function tooLarge(bytes: number, name: string): Refusal {
  return refuse(
    'refused',
    `${name} is ${megabytes(bytes)}; imports take up to ${megabytes(IMPORT_FILE_LIMIT)}. Split it into smaller files and import each`,
  )
}

/** A size in MB (MiB) with one decimal where it matters. */
function megabytes(bytes: number): string {
  const mb = bytes / 1024 / 1024
  return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`
}

/** The preview token: an HMAC under the per-process key over the file hash, the store id and the generation. */
function previewToken(fileSha256: string, storeId: string, generation: number): string {
  return createHmac('sha256', TOKEN_KEY)
    .update(JSON.stringify([fileSha256, storeId, generation]))
    .digest('base64url')
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8')
  const b = Buffer.from(expected, 'utf8')
  return a.byteLength === b.byteLength && timingSafeEqual(a, b)
}

/**
 * @param error - a thrown file-system error
 * @returns its code (ENOENT, EACCES, …), or "I/O error"
 */
export function errorCode(error: unknown): string {
  return error instanceof Error && 'code' in error ? String(error.code) : 'I/O error'
}
