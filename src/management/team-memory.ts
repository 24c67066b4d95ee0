/**
 * The team-memory verb: share the project a folder belongs to through its repository (`<root>/.fact-memory/`), or
 * stop. Turning it on runs a round at once and answers it: this device's project facts are written into the folder
 * and the teammates' files in it are read. The plugin never commits or pushes; the user commits the folder with the
 * code. Not fenced by generation: the choice is bookkeeping, and a round applies teammates' records through the
 * store's own write rules; the request fence (loopback host, same origin) guards it like every verb.
 */
import { classifyProblem } from '../sync/sync-status.ts'
import { ok, refuse, verb } from './verb.ts'

export const teamMemoryVerb = verb('team-memory', {
  async run(body, context) {
    if (context.team === undefined) return refuse('unavailable', 'team memory does not run in this host')
    const outcome = await context.team.setShared(body.folder, body.shared)
    if (!outcome.ok) return refuse(outcome.code, outcome.message)
    const { round } = outcome
    return ok({
      project: outcome.project,
      root: outcome.root,
      folder: outcome.folder,
      shared: outcome.shared,
      round:
        round === null
          ? null
          : {
              ok: round.ok,
              sent: round.sent,
              received: round.received,
              compacted: round.compacted,
              devices: round.devices.map((entry) => ({ id: entry.device, name: entry.name })),
              problems: round.problems.map(classifyProblem),
            },
      team: context.team.status(),
    })
  },
})
