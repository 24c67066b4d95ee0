/**
 * The privacy scan's operating point for npm run bench (`--only privacy`): precision and recall of personal-data
 * detection on the graded look-alike set (tests/fixtures/privacy-lookalikes.jsonl), whole, by grade and by language,
 * and of detection on the red-team corpus (tests/fixtures/red-team.jsonl). Pure over the files: no store, no clock.
 * Prints a table and returns the figures for the bench's JSON.
 */
import { lookalikeFigures, redTeamFigures, type ScanFigures } from '../tests/helpers/privacy-set.ts'

/** The figures the bench records. */
export interface PrivacyBench {
  readonly lookalikes: Record<string, ScanFigures>
  readonly redTeam: ScanFigures
}

/**
 * Score the scan and print the table.
 * @returns the figures.
 */
export function privacyBench(): PrivacyBench {
  const lookalikes = lookalikeFigures()
  const redTeam = redTeamFigures()
  const figure = (n: number): string => n.toFixed(3)
  console.log(
    '\nPrivacy scan: personal data caught with the right kind (email, phone, ID number) vs look-alikes flagged',
  )
  console.log('| set | slice | cases | precision | recall | right | flagged wrongly | missed |')
  console.log('|---|---|---:|---:|---:|---:|---:|---:|')
  const row = (set: string, slice: string, f: ScanFigures): void => {
    console.log(
      `| ${set} | ${slice} | ${f.cases} | ${figure(f.precision)} | ${figure(f.recall)} | ${f.truePositives} | ${f.falsePositives} | ${f.falseNegatives} |`,
    )
  }
  for (const [slice, f] of Object.entries(lookalikes)) row('look-alikes', slice, f)
  row('red-team (any finding)', 'all', redTeam)
  for (const miss of [...(lookalikes['all']?.misses ?? []), ...redTeam.misses]) console.log(`  ${miss}`)
  return { lookalikes, redTeam }
}
