/**
 * The Team memory part of the Sync panel, in words, pure: per project shared through its repository, where its folder
 * is, the teammates' devices found there, the last round, and what the "Share" and "Stop sharing" buttons did.
 */
import type { VerbAnswer } from './api.ts'
import { countOf, formatAge } from './format.ts'
import { problemWords } from './sync-words.ts'

/** Team memory's status, as status and team-memory answer it. */
export type TeamStatusWire = VerbAnswer<'team-memory'>['team']
/** One shared project. */
export type TeamProjectWire = TeamStatusWire[number]
/** What turning a project on or off answered. */
export type TeamAnswerWire = VerbAnswer<'team-memory'>

/** The sentence above the list. */
export const TEAM_INTRO =
  "Team memory keeps a project's facts in its own repository, in .fact-memory/, for teammates to read after a pull. " +
  'Commit the folder with your code; the plugin never commits or pushes. Sensitive facts never go there, and a ' +
  "teammate's fact arrives as observed, never stronger than your own word."

/**
 * One shared project's lines.
 * @param project - its status.
 * @param now - epoch ms.
 * @returns the sentences: the folder, the devices, the last round, then the problems.
 */
export function teamProjectWords(project: TeamProjectWire, now: number): string[] {
  const lines = [`${project.project.name}: shared in ${project.folder}.`]
  lines.push(
    project.devices.length === 0
      ? 'No teammate has written to the folder yet (pull to get theirs).'
      : `Teammates' devices in the folder: ${project.devices.map((device) => device.name).join(', ')}.`,
  )
  const last = project.lastRound
  if (last !== null)
    lines.push(
      last.outcome === 'failed'
        ? `Last round ${formatAge(last.finishedAt, now)} failed.`
        : `Last round ${formatAge(last.finishedAt, now)}: wrote ${countOf(last.sent, 'change')}, read ${countOf(last.received, 'change')}.`,
    )
  if (project.pending > 0) lines.push(`${countOf(project.pending, 'change')} waiting to be written.`)
  return [...lines, ...project.problems.map(problemWords)]
}

/**
 * What turning team memory on or off did.
 * @param answer - the verb's answer.
 * @returns the sentence.
 */
export function teamAnswerWords(answer: TeamAnswerWire): string {
  if (!answer.shared) return `${answer.project.name} is no longer shared; what teammates said stays in your memory.`
  const round = answer.round
  const did =
    round === null || !round.ok
      ? 'the first round did not finish; it retries by itself'
      : `wrote ${countOf(round.sent, 'change')} and read ${countOf(round.received, 'change')}`
  return `${answer.project.name} is shared in ${answer.folder}: ${did}. Commit the folder with your code.`
}
