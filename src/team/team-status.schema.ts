/**
 * The team memory status the page and the `status` verb show, as a zod schema and its type: per shared project, its
 * repository's folder here, the teammates' devices found in it, the last round, what waits to be written, and the
 * problems in words with the closed codes of sync (sync/sync-status.schema.ts).
 */
import { z } from 'zod'
import { syncStatusSchema } from '../sync/sync-status.schema.ts'

/** One shared project: where its folder is, and the round status of sync (its own rounds) for that folder. */
export const teamProjectStatusSchema = syncStatusSchema
  .pick({ devices: true, lastRound: true, pending: true, problems: true, running: true, nextRoundAt: true })
  .extend({
    project: z.strictObject({ key: z.string().min(1).max(4200), name: z.string().min(1).max(200) }),
    /** The repository's root on this machine. */
    root: z.string().max(4096),
    /** The team folder, `<root>/.fact-memory`. */
    folder: z.string().max(4200),
    /** ISO instant the user turned it on. */
    since: z.string().max(40),
  })

/** Team memory: the shared projects (none: off everywhere). */
export const teamStatusSchema = z.array(teamProjectStatusSchema)

/** One shared project's status. */
export type TeamProjectStatus = z.infer<typeof teamProjectStatusSchema>
