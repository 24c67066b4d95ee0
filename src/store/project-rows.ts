/**
 * The projects table beside the facts: the name of each project key and when a fact was first and last written
 * under it. Functions over an open database, called inside the transactions of the stores that write facts.
 */
import type { Database } from './database.ts'
import type { ProjectRef } from '../types.ts'

/** One known project. */
export interface ProjectRow {
  readonly key: string
  readonly name: string
  /** ISO instant a fact was first written under it. */
  readonly firstSeen: string
  /** ISO instant a fact was last written under it. */
  readonly lastSeen: string
}

/**
 * Note that a fact was written under a project: a new key is recorded with the project's name, a known one keeps
 * its name and moves its last-seen instant forward.
 * @param db - the open database, inside the writing transaction.
 * @param project - the project.
 * @param now - ISO instant.
 */
export function recordProject(db: Database, project: ProjectRef, now: string): void {
  db.run(
    `INSERT INTO projects (project_key, name, first_seen, last_seen) VALUES (?, ?, ?, ?)
    ON CONFLICT (project_key) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen)`,
    project.key,
    project.name,
    now,
    now,
  )
}

/**
 * One known project.
 * @param db - the open database.
 * @param key - a project key.
 * @returns the project, or undefined when no fact was ever written under the key.
 */
export function projectNamed(db: Database, key: string): ProjectRow | undefined {
  return projectRows(db, key)[0]
}

/**
 * Every known project, by name (or the one of a key).
 * @param db - the open database.
 * @param key - only this project key; every project when absent.
 * @returns the projects, sorted by name, then key.
 */
export function projectRows(db: Database, key?: string): ProjectRow[] {
  const rows =
    key === undefined
      ? db.all('SELECT project_key, name, first_seen, last_seen FROM projects ORDER BY name, project_key')
      : db.all('SELECT project_key, name, first_seen, last_seen FROM projects WHERE project_key = ?', key)
  return rows.map((row) => ({
    key: String(row['project_key']),
    name: String(row['name']),
    firstSeen: String(row['first_seen']),
    lastSeen: String(row['last_seen']),
  }))
}

/**
 * A project's key moved (a rekey here, or one another device made, applied by sync): the new key holds the project
 * from its first to its last write, under the name it was known by first (two checkouts of one repository keep the
 * older one's name), and the old key is gone from the table.
 * @param db - the open database, inside the moving transaction.
 * @param fromKey - the old key.
 * @param to - the new key and the name to use when the old key had none.
 * @param now - ISO instant, for a project the table did not hold.
 */
export function moveProjectRow(db: Database, fromKey: string, to: ProjectRef, now: string): void {
  const from = db.get('SELECT name, first_seen, last_seen FROM projects WHERE project_key = ?', fromKey)
  const name = from === undefined ? to.name : String(from['name'])
  const first = from === undefined ? now : String(from['first_seen'])
  const last = from === undefined ? now : String(from['last_seen'])
  db.run(
    `INSERT INTO projects (project_key, name, first_seen, last_seen) VALUES (?, ?, ?, ?)
    ON CONFLICT (project_key) DO UPDATE SET name = CASE WHEN excluded.first_seen < first_seen THEN excluded.name ELSE name END,
      first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)`,
    to.key,
    name,
    first,
    last,
  )
  db.run('DELETE FROM projects WHERE project_key = ?', fromKey)
}
