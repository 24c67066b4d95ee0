/**
 * The speed part's tables: the growth curve by size, the plugin beside the bare store, what a fact costs by table
 * and index, and issue 20's targets with whether this run met them (against a baseline run's JSON for the targets
 * that compare with today).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import type { Percentiles } from './bench-stats.ts'
import type { SpeedRow } from './bench-speed.ts'
import type { VectorBench } from './bench-vectors.ts'

/** The parts of an earlier run's JSON the targets compare with. */
export interface Baseline {
  readonly file: string
  readonly speed: readonly BaselineRow[]
}

/** One size of a baseline run (a run from before WAL bytes were measured has none). */
export type BaselineRow = Pick<
  SpeedRow,
  'facts' | 'searchMs' | 'directoryRebuildMs' | 'writeMs' | 'graphNebulaMs' | 'statusRouteMs'
> & { readonly wal?: SpeedRow['wal'] }

/** A later figure within this factor of the baseline's counts as "not slower": the machine is shared and noisy. */
const NOT_SLOWER_TOLERANCE = 1.1

/** Today's recall@10 of the shipped scan widths against exact, from issue 20. */
const TODAY_VECTOR_RECALL: Readonly<Record<number, number>> = { 10000: 0.948, 100000: 0.895 }

/**
 * The baseline: the file given, or the newest bench-results/baseline-issue20-*.json.
 * @param given - a path from `--baseline`, if any.
 * @param resultsDir - bench-results/.
 * @returns the baseline, or undefined when there is none.
 */
export function readBaseline(given: string | undefined, resultsDir: string): Baseline | undefined {
  let file = given
  if (file === undefined && existsSync(resultsDir)) {
    const newest = readdirSync(resultsDir)
      .filter((name) => /^baseline-issue20-.*\.json$/u.test(name))
      .sort()
      .at(-1)
    file = newest === undefined ? undefined : join(resultsDir, newest)
  }
  if (file === undefined) return undefined
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { speed?: Baseline['speed'] }
  return { file, speed: parsed.speed ?? [] }
}

const p = (figure: Percentiles | null | undefined): string =>
  figure === null || figure === undefined ? 'n/a' : `${figure.p50} / ${figure.p95}`
const kib = (bytes: number): string => `${Math.round((bytes / 1024) * 10) / 10} KiB`
const ratio = (a: number, b: number): string => (b === 0 ? 'n/a' : `${Math.round((a / b) * 100) / 100}×`)

/**
 * Print the speed part's tables.
 * @param rows - one per size.
 */
export function printSpeedTables(rows: readonly SpeedRow[]): void {
  console.log(
    '\n| facts | seed s | search p50/p95 ms | directory cached p50/p95 ms | directory rebuild p50/p95 ms | write p50/p95 ms | cold open p50/p95 ms | first open after the seed ms | per-turn recall p50/p95 ms | vector channel p50/p95 ms (1,024-d) | file MB | bytes a fact | WAL bytes/write median / p95 | RSS MB |',
  )
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const row of rows) {
    console.log(
      `| ${row.facts} | ${row.seedSeconds} | ${p(row.searchMs)} | ${p(row.directoryCachedMs)} | ${p(row.directoryRebuildMs)} | ${p(row.writeMs)} | ${p(row.coldOpenMs)} | ${row.firstOpenMs} | ${p(row.recallMs)} | ${p(row.vectorSearchMs)} | ${row.fileMb} | ${row.bytesPerFact} | ${row.wal.bytes.p50} / ${row.wal.bytes.p95} | ${row.rssMb} |`,
    )
  }
  console.log(
    `search answers (subject·property questions whose slot the store holds; the rendered memory_search answer at limit 5 shows it): ${rows
      .map((row) => `${row.facts}: ${row.searchAnswered.answered}/${row.searchAnswered.asked}`)
      .join(', ')}`,
  )
  console.log(
    `machine load average (1 min) at the start → end of each size: ${rows.map((row) => `${row.facts}: ${row.loadAverage.start} → ${row.loadAverage.end}`).join(', ')} on ${cpus().length} CPUs`,
  )
  console.log(
    '\n| facts | status route p50/p95 ms | first facts page p50/p95 ms | graph nebula after a write p50/p95 ms | graph nebula unchanged p50/p95 ms | graph tree p50/p95 ms |',
  )
  console.log('|---:|---:|---:|---:|---:|---:|')
  for (const row of rows) {
    console.log(
      `| ${row.facts} | ${p(row.statusRouteMs)} | ${p(row.factsPageMs)} | ${p(row.graphNebulaMs)} | ${p(row.graphNebulaUnchangedMs)} | ${p(row.graphTreeMs)} |`,
    )
  }
  console.log(
    '\n| facts | web host RSS, store open MB | after the first nebula MB (added) | after 10 more nebulas and 10 trees MB (added) |',
  )
  console.log('|---:|---:|---:|---:|')
  for (const { facts, hostRss: rss } of rows) {
    if (rss === null) console.log(`| ${facts} | skipped (size above --host-rss-max) | | |`)
    else
      console.log(
        `| ${facts} | ${rss.idleMb} | ${rss.firstNebulaMb} (+${rss.firstNebulaMb - rss.idleMb}) | ${rss.afterMoreMb} (+${rss.afterMoreMb - rss.idleMb}) |`,
      )
  }
  console.log(
    "\nBeside the bare store (one table, contentless FTS5 over the same terms, a claim-key index and the directory's index, WAL, synchronous=FULL; the same facts, queries and writes)",
  )
  console.log(
    '| facts | store | seed s | file MB | bytes a fact | write p50/p95 ms | search p50/p95 ms | WAL frames/write median / p95 | WAL bytes/write median / p95 |',
  )
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|---:|')
  for (const row of rows) {
    const { bare } = row
    console.log(
      `| ${row.facts} | plugin | ${row.seedSeconds} | ${row.fileMb} | ${row.bytesPerFact} | ${p(row.writeMs)} | ${p(row.searchMs)} | ${row.wal.frames.p50} / ${row.wal.frames.p95} | ${row.wal.bytes.p50} / ${row.wal.bytes.p95} |`,
    )
    console.log(
      `| ${row.facts} | bare | ${bare.seedSeconds} | ${Math.round(bare.fileBytes / 1e5) / 10} | ${bare.bytesPerFact} | ${p(bare.writeMs)} | ${p(bare.searchMs)} | ${bare.wal.frames.p50} / ${bare.wal.frames.p95} | ${bare.wal.bytes.p50} / ${bare.wal.bytes.p95} |`,
    )
  }
  console.log(
    '\n| facts | file plugin ÷ bare | write p95 plugin ÷ bare | WAL bytes/write median plugin ÷ bare | search p95 plugin ÷ bare |',
  )
  console.log('|---:|---:|---:|---:|---:|')
  for (const row of rows) {
    const { bare } = row
    console.log(
      `| ${row.facts} | ${ratio(row.fileBytes, bare.fileBytes)} | ${ratio(row.writeMs.p95, bare.writeMs.p95)} | ${ratio(row.wal.bytes.p50, bare.wal.bytes.p50)} | ${ratio(row.searchMs.p95, bare.searchMs.p95)} |`,
    )
  }
  console.log('\nWhat a fact costs, by table and index (dbstat; the eight largest; every object is in the JSON)')
  console.log('| facts | store | table or index | bytes | bytes a fact |')
  console.log('|---:|---|---|---:|---:|')
  for (const row of rows) {
    for (const [store, objects] of [
      ['plugin', row.objects],
      ['bare', row.bare.objects],
    ] as const) {
      for (const object of objects.slice(0, 8))
        console.log(`| ${row.facts} | ${store} | ${object.name} | ${kib(object.bytes)} | ${object.bytesPerFact} |`)
    }
  }
}

/** One target's line. */
interface TargetLine {
  readonly target: string
  readonly facts: number | string
  readonly figure: string
  readonly met: boolean | undefined
}

/**
 * Print issue 20's targets and whether this run met them.
 * @param rows - this run's speed rows.
 * @param vectors - this run's vector rows, if the vector part ran.
 * @param baseline - the baseline run for the targets against today, if any.
 */
export function printTargets(
  rows: readonly SpeedRow[],
  vectors: readonly VectorBench[] | undefined,
  baseline: Baseline | undefined,
): void {
  const lines: TargetLine[] = []
  for (const row of rows) {
    const { bare } = row
    lines.push({
      target: 'file ≤ 2× the bare store',
      facts: row.facts,
      figure: ratio(row.fileBytes, bare.fileBytes),
      met: row.fileBytes <= 2 * bare.fileBytes,
    })
    lines.push({
      target: 'file ≤ 750 B a fact (no vectors)',
      facts: row.facts,
      figure: `${row.bytesPerFact} B`,
      met: row.bytesPerFact <= 750,
    })
    lines.push({
      target: "write p95 ≤ 2× the bare store's single-row insert",
      facts: row.facts,
      figure: `${row.writeMs.p95} ms vs ${bare.writeMs.p95} ms (${ratio(row.writeMs.p95, bare.writeMs.p95)})`,
      met: row.writeMs.p95 <= 2 * bare.writeMs.p95,
    })
    const before = baseline?.speed.find((old) => old.facts === row.facts)
    const walBefore = before?.wal?.bytes.p50
    lines.push({
      target: 'WAL bytes/write (median) halved from today',
      facts: row.facts,
      figure:
        walBefore === undefined
          ? `${row.wal.bytes.p50} B (no baseline figure)`
          : `${row.wal.bytes.p50} B vs ${walBefore} B (${ratio(row.wal.bytes.p50, walBefore)})`,
      met: walBefore === undefined ? undefined : row.wal.bytes.p50 <= walBefore / 2,
    })
    if (row.facts < 1_000_000) {
      for (const [name, figure, old] of [
        ['search p95', row.searchMs, before?.searchMs],
        ['directory rebuild p95', row.directoryRebuildMs, before?.directoryRebuildMs],
        ['write p95', row.writeMs, before?.writeMs],
        ['graph nebula after a write p95', row.graphNebulaMs, before?.graphNebulaMs],
        ['status p95', row.statusRouteMs, before?.statusRouteMs],
      ] as const) {
        lines.push({
          target: `${name} not slower than today (≤ ${NOT_SLOWER_TOLERANCE}× the baseline)`,
          facts: row.facts,
          figure:
            old === undefined
              ? `${figure.p95} ms (no baseline)`
              : `${figure.p95} ms vs ${old.p95} ms (${ratio(figure.p95, old.p95)})`,
          met: old === undefined ? undefined : figure.p95 <= NOT_SLOWER_TOLERANCE * old.p95,
        })
      }
    } else {
      const at100k = rows.find((other) => other.facts === 100_000)
      lines.push({
        target: 'lexical search p95 ≤ 3× its 100k figure',
        facts: row.facts,
        figure:
          at100k === undefined
            ? `${row.searchMs.p95} ms (100k not in this run)`
            : `${row.searchMs.p95} ms vs ${at100k.searchMs.p95} ms (${ratio(row.searchMs.p95, at100k.searchMs.p95)})`,
        met: at100k === undefined ? undefined : row.searchMs.p95 <= 3 * at100k.searchMs.p95,
      })
      lines.push({
        target: 'write p95 ≤ 5 ms',
        facts: row.facts,
        figure: `${row.writeMs.p95} ms`,
        met: row.writeMs.p95 <= 5,
      })
      lines.push({
        target: 'directory rebuild p95 ≤ 5 ms',
        facts: row.facts,
        figure: `${row.directoryRebuildMs.p95} ms`,
        met: row.directoryRebuildMs.p95 <= 5,
      })
      lines.push({
        target: 'nebula after a write p95 ≤ 300 ms',
        facts: row.facts,
        figure: `${row.graphNebulaMs.p95} ms`,
        met: row.graphNebulaMs.p95 <= 300,
      })
    }
  }
  for (const row of vectors ?? []) {
    lines.push({
      target: 'vectors ≤ 1.2 KiB a fact on disk (1,024-d)',
      facts: row.facts,
      figure: `${row.diskBytesPerFact} B`,
      met: row.diskBytesPerFact <= 1.2 * 1024,
    })
    const shipped = row.recall.find(
      (point) => point.shortlist === row.hammingShortlist && point.candidates === row.coarseCandidates,
    )
    const today = TODAY_VECTOR_RECALL[row.facts]
    if (shipped !== undefined) {
      lines.push({
        target: "vector recall@10 within 0.01 of today's",
        facts: row.facts,
        figure:
          today === undefined
            ? `${shipped.recallAt10} (no figure for today at this size)`
            : `${shipped.recallAt10} vs ${today}`,
        met: today === undefined ? undefined : shipped.recallAt10 >= today - 0.01,
      })
    }
    if (row.facts === 100_000) {
      const cold = row.freshProcess.firstQueryMs.p50
      lines.push({
        target: 'first vector query of a fresh process ≤ 50 ms (p50, the query loading the codes)',
        facts: row.facts,
        figure: `${cold} ms (second query ${row.freshProcess.secondQueryMs.p50} ms)`,
        met: cold <= 50,
      })
      const warm = row.warmStart.firstQueryMs.p50
      lines.push({
        target: 'first vector query of a fresh process ≤ 50 ms (p50, after the warm start)',
        facts: row.facts,
        figure: `${warm} ms (load ${row.warmStart.preloadMs.p50} ms, longest slice ${row.warmStart.longestSliceMs.p50} ms)`,
        met: warm <= 50,
      })
    }
  }
  console.log(
    `\nIssue 20's targets${baseline === undefined ? ' (no baseline run found: the targets against today are not judged)' : ` (today = ${baseline.file})`}`,
  )
  console.log('| target | facts | this run | met |')
  console.log('|---|---:|---|---|')
  for (const line of lines)
    console.log(
      `| ${line.target} | ${line.facts} | ${line.figure} | ${line.met === undefined ? 'not judged' : line.met ? 'yes' : 'NO'} |`,
    )
}
