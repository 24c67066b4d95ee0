/**
 * Pure: how a session's project is named. A project is the repository a session's working directory lies in (or that
 * directory itself outside a repository); its key is the repository's identity (repository-identity.ts) or, failing
 * one, the root's canonical path; its name the root's folder name; and a fact scoped to it is stored under the scope
 * text `project:<key>`. No file system here: the walk up to
 * the repository root takes a probe (see project-locator.ts for the one that reads the disk).
 */
import { canonicalPredicate } from '../text/normalize.ts'
import { ROOT_KEY_PREFIX } from './repository-identity.ts'
import type { ProjectRef } from '../types.ts'

/** How a project scope's text begins; no other scope may begin so. */
export const PROJECT_SCOPE_PREFIX = 'project:'

/** The scope a write gets when it names none. */
export const GLOBAL_SCOPE = 'global'

/** The scope word a memory_write call or an extraction answer uses for the session's own project. */
export const PROJECT_SCOPE_WORD = 'project'

/**
 * The canonical form of a root path: separators are `/`, runs of them fold into one, and there is no trailing
 * slash (a file-system root keeps its own, `/` or `C:/`). The path is expected already resolved (realpath).
 * @param path - an absolute, resolved path.
 * @returns the project key.
 */
export function canonicalProjectKey(path: string): string {
  const slashed = path.replace(/\\/gu, '/').replace(/\/{2,}/gu, '/')
  const trimmed = slashed.replace(/\/+$/u, '')
  if (trimmed === '') return '/'
  return /^[A-Za-z]:$/u.test(trimmed) ? `${trimmed}/` : trimmed
}

/**
 * The readable name of a project key, for a project the store knows no name of: its last path segment (a folder's, or
 * a remote URL's repository name), `repository <abbreviated commit>` for a key from a root commit, the key itself for
 * a file-system root.
 * @param key - a project key.
 * @returns the name.
 */
export function projectNameOf(key: string): string {
  if (key.startsWith(ROOT_KEY_PREFIX))
    return `repository ${key.slice(ROOT_KEY_PREFIX.length, ROOT_KEY_PREFIX.length + 7)}`
  const segments = key.split('/').filter((segment) => segment !== '')
  const last = segments.at(-1)
  return last === undefined || (segments.length === 1 && /^[A-Za-z]:$/u.test(last)) ? key : last
}

/**
 * The project whose root is a path.
 * @param rootPath - the resolved root path.
 * @returns its key and name.
 */
export function projectOfRoot(rootPath: string): ProjectRef {
  const key = canonicalProjectKey(rootPath)
  return { key, name: projectNameOf(key) }
}

/**
 * The scope text a project-scoped fact is stored under.
 * @param project - the project, or its key.
 * @returns `project:<key>`.
 */
export function projectScope(project: ProjectRef | string): string {
  return `${PROJECT_SCOPE_PREFIX}${typeof project === 'string' ? project : project.key}`
}

/**
 * The project key a scope text names. The text is read trimmed, so " project:/x" is the project scope it looks like,
 * never a free-text label that would store a project's scope under global keys.
 * @param scope - a stored or given scope.
 * @returns the key, or null for the global scope and free-text labels.
 */
export function projectKeyOfScope(scope: string): string | null {
  const text = scope.trim()
  if (!text.startsWith(PROJECT_SCOPE_PREFIX)) return null
  const key = text.slice(PROJECT_SCOPE_PREFIX.length)
  return key === '' ? null : key
}

/**
 * Whether a scope a caller gives is the word for the calling session's project (`"project"`, any case or spacing).
 * @param scope - the scope as given, if any.
 * @returns true for the project word.
 */
export function isProjectWord(scope: string | undefined): boolean {
  return scope?.trim().toLowerCase() === PROJECT_SCOPE_WORD
}

/**
 * Whether a scope text names a project.
 * @param scope - a stored scope.
 * @returns true for `project:<key>`.
 */
export function isProjectScope(scope: string): boolean {
  return projectKeyOfScope(scope) !== null
}

/**
 * Walk up from a folder to the nearest one that holds `.git` (a directory, or the file a worktree or submodule
 * has), up to the file-system root.
 * @param start - the resolved folder to start from.
 * @param holdsGit - whether a folder holds `.git`.
 * @param parentOf - the folder above one (itself at the root).
 * @returns the repository root, or `start` when no folder on the way holds `.git`.
 */
export function repositoryRootOf(
  start: string,
  holdsGit: (folder: string) => boolean,
  parentOf: (folder: string) => string,
): string {
  let folder = start
  for (;;) {
    if (holdsGit(folder)) return folder
    const parent = parentOf(folder)
    if (parent === folder) return start
    folder = parent
  }
}

/**
 * Whether a statement names a project: its folder name occurs in the text as whole words, case and separators
 * folded ("billing_api" and "Billing API" name the project `billing-api`).
 * @param text - the statement.
 * @param project - the session's project.
 * @returns true when the text names it.
 */
export function statementNamesProject(text: string, project: ProjectRef): boolean {
  const name = canonicalPredicate(project.name)
  if (name === '') return false
  return ` ${canonicalPredicate(text)} `.includes(` ${name} `)
}
