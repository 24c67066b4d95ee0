/**
 * npm test repeats each failed job's failures beside its summary (scripts/test-failures.mjs), so a log read from its
 * tail names the failing test.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { failureRecap, RECAP_LINES } from '../scripts/test-failures.mjs'

describe('the failures npm test repeats at the end of its log', () => {
  it("keeps node:test's failing-tests section of a real failed run, with the test's name and its error", () => {
    const folder = mkdtempSync(join(tmpdir(), 'fact-memory-failures-'))
    try {
      const file = join(folder, 'demo.spec.mjs')
      writeFileSync(
        file,
        [
          "import assert from 'node:assert/strict'",
          "import { it } from 'node:test'",
          "it('passes quietly', () => {})",
          "it('compares the wrong port', () => { assert.equal(4100, 4200) })",
        ].join('\n'),
      )
      // Without this runner's NODE_TEST_CONTEXT, the child reports as npm test's jobs do, not to a parent runner.
      const { NODE_TEST_CONTEXT: _parent, ...env } = process.env
      const run = spawnSync(process.execPath, ['--test-reporter=spec', file], { encoding: 'utf8', env })
      assert.notEqual(run.status, 0)
      const recap = failureRecap(run.stdout + run.stderr)
      assert.match(recap, /^✖ failing tests:/u)
      assert.match(recap, /✖ compares the wrong port/u)
      assert.match(recap, /4100 !== 4200/u)
      assert.doesNotMatch(recap, /passes quietly/u)
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })

  it('finds the section through colour codes', () => {
    const recap = failureRecap('✔ one\n\u001b[31m✖ failing tests:\u001b[39m\n\n✖ two\n  boom\n')
    assert.match(recap, /failing tests:/u)
    assert.match(recap, /✖ two\n {2}boom$/u)
    assert.doesNotMatch(recap, /✔ one/u)
  })

  it("keeps the last lines of a process that ended without a section, and caps a long one's", () => {
    const crashed = Array.from({ length: 100 }, (_, index) => `line ${index}`).join('\n')
    const recap = failureRecap(`${crashed}\nError: the host did not start\n`)
    assert.match(recap, /Error: the host did not start$/u)
    assert.doesNotMatch(recap, /line 10\n/u)
    const long = failureRecap(
      ['✖ failing tests:', ...Array.from({ length: RECAP_LINES * 2 }, (_, i) => `detail ${i}`)].join('\n'),
    )
    assert.equal(long.split('\n').length, RECAP_LINES + 1)
    assert.match(long, /more lines above, where the job ended$/u)
  })
})
