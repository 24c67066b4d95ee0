/**
 * Pure placement of search candidates by project. A fact of the global scope, of a free-text scope or of the
 * calling session's project is at home in the search; a fact of another project is not. Home candidates keep their
 * order and come first; other projects' follow in their order ('mark', the answer names their project) or are left
 * out ('exclude'). No score is changed: the placement is a stable partition of an order the channels decided.
 */
import { projectKeyOfScope } from '../project/project-ref.ts'
import type { ProjectRef } from '../types.ts'

/** What a search does with other projects' facts: rank them after the rest and name their project, or leave them out. */
export type OtherProjects = 'mark' | 'exclude'

/**
 * Whether a scope belongs to another project than the session's.
 * @param scope - a stored scope.
 * @param project - the calling session's project, or null outside one (then every project is another).
 * @returns true for a project scope that is not the session's.
 */
export function isOtherProject(scope: string, project: ProjectRef | null): boolean {
  const key = projectKeyOfScope(scope)
  return key !== null && key !== project?.key
}

/**
 * Place candidates by project: home first, then other projects' (or none of them).
 * @param items - candidates, best first.
 * @param scopeOf - a candidate's stored scope.
 * @param project - the calling session's project, or null.
 * @param otherProjects - mark (keep them, after the rest) or exclude (drop them).
 * @returns the placed candidates.
 */
export function placeByProject<T>(
  items: readonly T[],
  scopeOf: (item: T) => string,
  project: ProjectRef | null,
  otherProjects: OtherProjects,
): T[] {
  const home: T[] = []
  const elsewhere: T[] = []
  for (const item of items) (isOtherProject(scopeOf(item), project) ? elsewhere : home).push(item)
  return otherProjects === 'exclude' ? home : [...home, ...elsewhere]
}
