/**
 * Holds some of a page's management-API reads on a gate, so a browser spec chooses the order their answers land in:
 * the reads of one verb that the spec picks wait until it lets them through, and letting them through returns once
 * their answers have reached the page and anything they caused has been drawn.
 */
import type { Page, Request, Route } from 'playwright-core'
import { until } from './poll.ts'

/** Reads held on a gate. */
export interface HeldReads {
  /**
   * Wait until this many reads are held.
   * @param count - how many (1 by default).
   */
  reached(count?: number): Promise<void>
  /**
   * Let every held read through, and any later one of the verb from now on; returns once their answers have reached
   * the page and two frames have been drawn since, so whatever they changed is on screen.
   */
  release(): Promise<void>
}

/**
 * Hold the page's reads of a verb whose body the spec picks, up to a number of them, until released.
 * @param page - the page.
 * @param verb - the management verb, as in /api/fact-memory/<verb>.
 * @param picks - which bodies to hold (every one by default).
 * @param most - how many reads to hold at most; later ones go through (no limit by default).
 * @returns the held reads.
 */
export async function holdReads(
  page: Page,
  verb: string,
  picks: (body: string) => boolean = () => true,
  most = Number.POSITIVE_INFINITY,
): Promise<HeldReads> {
  const url = `**/api/fact-memory/${verb}`
  const held: Request[] = []
  let open = false
  let letThrough = (): void => undefined
  const gate = new Promise<void>((resolve) => {
    letThrough = resolve
  })
  const handler = async (route: Route): Promise<void> => {
    if (!open && held.length < most && picks(route.request().postData() ?? '')) {
      held.push(route.request())
      await gate
    }
    await route.continue()
  }
  await page.route(url, handler)
  return {
    reached: (count = 1) => until(() => held.length >= count, `${count} ${verb} read(s) held`),
    async release() {
      open = true
      letThrough()
      await Promise.all(held.map(async (request) => (await request.response())?.finished()))
      await page.unroute(url, handler)
      await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))')
    },
  }
}
