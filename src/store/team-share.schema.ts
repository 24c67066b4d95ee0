/**
 * zod schema for one project's team-memory choice as the store keeps it (a `store_meta` row per project key, read
 * back from the file): where the repository is checked out on this machine, since when it is shared, and per
 * teammate device the last sequence number read cleanly from its folder.
 */
import { z } from 'zod'

/** One shared project, as stored. */
export const teamShareSchema = z.strictObject({
  /** The project's readable name. */
  name: z.string().min(1).max(200),
  /** The repository's root on this machine (absolute). */
  root: z.string().min(1).max(4096),
  /** ISO instant the user turned it on. */
  since: z.string().max(40),
  /** Per device in the team folder, the last sequence number read cleanly. */
  cursor: z.record(z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/u), z.number().int().nonnegative()),
})

/** One shared project's stored choice. */
export type TeamShareRecord = z.infer<typeof teamShareSchema>

/**
 * Read a stored choice back.
 * @param text - the stored JSON text.
 * @returns the choice, or undefined when the text is not one (it is then taken as not shared).
 */
export function parseTeamShare(text: string): TeamShareRecord | undefined {
  try {
    const parsed = teamShareSchema.safeParse(JSON.parse(text))
    return parsed.success ? parsed.data : undefined
  } catch {
    // Not JSON: a damaged row is taken as not shared, and turning sharing on writes it anew.
    return undefined
  }
}
