/**
 * Path confinement for export and import: a requested path names a file inside the data directory, or it is
 * refused. Refused before touching the file: NUL bytes, UNC and device paths, `..` segments, absolute paths outside
 * the directory; after resolving symlinks: anything whose real path leaves the real data directory.
 */
import { realpathSync } from 'node:fs'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'

/** A confined path, or why the request was refused. */
export type ConfinedPath =
  | { readonly ok: true; readonly path: string; readonly relativePath: string }
  | { readonly ok: false; readonly reason: string }

/**
 * Confine a requested path to the data directory. The target need not exist (an export destination); then its
 * nearest existing ancestor is what must stay inside.
 * @param dataDir - the absolute data directory; it must exist.
 * @param requested - a path relative to the data directory, or an absolute path inside it.
 * @param platform - the path rules to apply; the running platform by default.
 * @returns the resolved absolute path (symlinks resolved) and its `/`-separated path relative to the data
 *   directory, or the reason for refusing.
 */
export function confinePath(
  dataDir: string,
  requested: string,
  platform: NodeJS.Platform = process.platform,
): ConfinedPath {
  if (requested.includes('\u0000')) return refuse('the path contains a NUL byte')
  if (/^[\\/]{2}/u.test(requested))
    return refuse('UNC and device paths (\\\\server\\share, //server/share) are not allowed')
  if (requested.split(/[\\/]/u).includes('..')) return refuse('the path must not contain ".." segments')
  if (platform !== 'win32' && /^[A-Za-z]:/u.test(requested))
    return refuse('the path is an absolute path outside the data directory')
  if (requested.trim() === '') return refuse('the path is empty')

  const root = resolve(dataDir)
  const target = resolve(root, requested)
  if (!inside(root, target)) {
    return refuse(
      isAbsolute(requested)
        ? 'the path is an absolute path outside the data directory'
        : 'the path leaves the data directory',
    )
  }

  let realRoot: string
  try {
    realRoot = realpathSync(root)
  } catch {
    return refuse('the data directory does not exist')
  }
  const nearest = realOfNearest(target)
  const real =
    nearest === undefined ? undefined : nearest.rest === '' ? nearest.real : resolve(nearest.real, nearest.rest)
  if (real === undefined || !inside(realRoot, real))
    return refuse('the path leads outside the data directory through a symbolic link')
  return { ok: true, path: real, relativePath: relative(realRoot, real).split(sep).join('/') }
}

/** Whether `child` lies strictly below `parent` (both absolute and resolved). */
function inside(parent: string, child: string): boolean {
  const rel = relative(parent, child)
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)
}

/**
 * The real path of `path`, or of its nearest existing ancestor together with the part below it that does not
 * exist yet.
 */
function realOfNearest(path: string): { real: string; rest: string } | undefined {
  let current = path
  let rest = ''
  for (;;) {
    try {
      return { real: realpathSync(current), rest }
    } catch {
      // Not there (yet): try the parent, remembering the missing tail.
    }
    const parent = dirname(current)
    if (parent === current) return undefined
    rest = rest === '' ? relative(parent, current) : `${relative(parent, current)}${sep}${rest}`
    current = parent
  }
}

function refuse(reason: string): ConfinedPath {
  return { ok: false, reason }
}
