/**
 * The graded privacy look-alike set (tests/fixtures/privacy-lookalikes.jsonl: personal data that must stay caught,
 * and SSH remotes, ssh/scp logins, npm scopes, version pins, image digests, dates and versions that must not be
 * flagged, in English and Chinese, graded 1 plain to 3 adversarial) and the privacy scan's precision and recall on it
 * and on the red-team corpus, shared by the privacy spec and the bench.
 */
import { readFileSync } from 'node:fs'
import { scanPrivacy } from '../../src/text/privacy.ts'
import type { Sensitivity } from '../../src/types.ts'
import { RED_TEAM } from './red-team.ts'

/** One labelled case: the fact's property and value, and the sensitivity the scan must give (null: none). */
export interface LookalikeCase {
  readonly kind: string
  readonly lang: 'en' | 'zh'
  readonly grade: 1 | 2 | 3
  readonly property: string
  readonly value: string
  readonly expect: Exclude<Sensitivity, 'credential'> | null
  readonly note: string
}

/** A detector's confusion counts and the figures drawn from them. */
export interface ScanFigures {
  readonly cases: number
  readonly truePositives: number
  readonly falsePositives: number
  readonly falseNegatives: number
  /** Of what the scan flagged, the share that was personal data of the right kind; 1 when it flagged nothing. */
  readonly precision: number
  /** Of the personal data present, the share the scan flagged with the right kind; 1 when there was none. */
  readonly recall: number
  /** The cases it got wrong, for a message. */
  readonly misses: readonly string[]
}

export const LOOKALIKES: readonly LookalikeCase[] = readFileSync(
  new URL('../fixtures/privacy-lookalikes.jsonl', import.meta.url),
  'utf8',
)
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as LookalikeCase)

/** The red-team lines that hold a secret or personal data, as the privacy spec has always counted them. */
export const RED_TEAM_PRIVATE = /secret key|password|token|personal data/u

/**
 * Score the scan on labelled cases: a positive is right only with the expected kind; a wrong kind counts as a miss.
 * @param cases - each case's property, value and expected kind (null: nothing to find).
 * @returns the counts and figures.
 */
export function scoreScan(
  cases: readonly {
    readonly property: string
    readonly value: string
    readonly expect: string | null
    readonly label: string
  }[],
): ScanFigures {
  let truePositives = 0
  let falsePositives = 0
  let falseNegatives = 0
  const misses: string[] = []
  for (const entry of cases) {
    const found = scanPrivacy(entry.property, entry.value)?.sensitivity ?? null
    if (entry.expect !== null && found === entry.expect) truePositives += 1
    else if (entry.expect !== null) {
      falseNegatives += 1
      misses.push(`missed (${found ?? 'nothing'}): ${entry.label}`)
    }
    if (entry.expect === null && found !== null) {
      falsePositives += 1
      misses.push(`flagged ${found}: ${entry.label}`)
    }
  }
  const flagged = truePositives + falsePositives
  const present = truePositives + falseNegatives
  return {
    cases: cases.length,
    truePositives,
    falsePositives,
    falseNegatives,
    precision: flagged === 0 ? 1 : truePositives / flagged,
    recall: present === 0 ? 1 : truePositives / present,
    misses,
  }
}

/**
 * The scan's figures on the look-alike set, whole and by grade and language.
 * @returns the figures under `all`, `grade 1`…`grade 3`, `en` and `zh`.
 */
export function lookalikeFigures(): Record<string, ScanFigures> {
  const label = (entry: LookalikeCase): { property: string; value: string; expect: string | null; label: string } => ({
    property: entry.property,
    value: entry.value,
    expect: entry.expect,
    label: `${entry.kind} · ${entry.property} · ${entry.value}`,
  })
  const of = (filter: (entry: LookalikeCase) => boolean): ScanFigures => scoreScan(LOOKALIKES.filter(filter).map(label))
  return {
    all: of(() => true),
    'grade 1': of((entry) => entry.grade === 1),
    'grade 2': of((entry) => entry.grade === 2),
    'grade 3': of((entry) => entry.grade === 3),
    en: of((entry) => entry.lang === 'en'),
    zh: of((entry) => entry.lang === 'zh'),
  }
}

/**
 * The scan's figures on the red-team corpus: a line holding a secret or personal data must be flagged (any kind), and
 * no other line may be.
 * @returns the figures.
 */
export function redTeamFigures(): ScanFigures {
  let truePositives = 0
  let falsePositives = 0
  let falseNegatives = 0
  const misses: string[] = []
  for (const entry of RED_TEAM) {
    const found = scanPrivacy('', entry.text) !== undefined
    const private_ = RED_TEAM_PRIVATE.test(entry.why)
    if (private_ && found) truePositives += 1
    else if (private_) {
      falseNegatives += 1
      misses.push(`missed: ${entry.text}`)
    } else if (found) {
      falsePositives += 1
      misses.push(`flagged: ${entry.text}`)
    }
  }
  const flagged = truePositives + falsePositives
  const present = truePositives + falseNegatives
  return {
    cases: RED_TEAM.length,
    truePositives,
    falsePositives,
    falseNegatives,
    precision: flagged === 0 ? 1 : truePositives / flagged,
    recall: present === 0 ? 1 : truePositives / present,
    misses,
  }
}
