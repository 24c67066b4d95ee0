/**
 * What a nebula spec reads off the drawn canvas: the graph's screen box once the layout holds still, the labels
 * drawn now with their boxes, and which of them overlap.
 */
import type { Page } from 'playwright-core'
import { until } from './poll.ts'

/** The canvas and the drawn graph's screen box, once the layout has settled (the box holds still for a while). */
export async function settledFrame(
  page: Page,
): Promise<{ canvas: { width: number; height: number }; box: number[]; coverage: number }> {
  const canvas = page.locator('fm-graph [data-fm="nebula"] canvas')
  let last = ''
  let still = 0
  await until(
    async () => {
      const frame = (await canvas.getAttribute('data-frame')) ?? ''
      still = frame !== '' && frame === last ? still + 1 : 0
      last = frame
      if (still < 4) await page.waitForTimeout(250)
      return still >= 4
    },
    'the nebula settles',
    30_000,
  )
  const size = await canvas.evaluate((element) => ({ width: element.clientWidth, height: element.clientHeight }))
  const box = last.split(',').map(Number)
  const [left = 0, top = 0, right = 0, bottom = 0] = box
  const clipped = (Math.min(size.width, right) - Math.max(0, left)) * (Math.min(size.height, bottom) - Math.max(0, top))
  return { canvas: size, box, coverage: clipped / (size.width * size.height) }
}

/** The labels drawn now: text, box, and the star each names. */
export async function drawnLabels(page: Page): Promise<
  {
    key: string
    text: string
    box: { x: number; y: number; width: number; height: number }
    anchor: [number, number]
  }[]
> {
  return page.locator('fm-graph [data-fm="nebula"] [data-label]').evaluateAll((elements) =>
    elements
      .filter((element) => element.getAttribute('style')?.includes('display: none') !== true)
      .map((element) => {
        const rect = element.getBoundingClientRect()
        const [x = 0, y = 0] = (element.getAttribute('data-anchor') ?? '').split(',').map(Number)
        return {
          key: element.getAttribute('data-label') ?? '',
          text: element.textContent ?? '',
          box: { x: rect.x, y: rect.y, width: rect.width, height: rect.height },
          anchor: [x, y] as [number, number],
        }
      }),
  )
}

export function overlapping(labels: Awaited<ReturnType<typeof drawnLabels>>): string[] {
  const clashes: string[] = []
  for (const [i, a] of labels.entries()) {
    for (const b of labels.slice(i + 1)) {
      if (
        a.box.x < b.box.x + b.box.width &&
        b.box.x < a.box.x + a.box.width &&
        a.box.y < b.box.y + b.box.height &&
        b.box.y < a.box.y + a.box.height
      ) {
        clashes.push(`${a.text} / ${b.text}`)
      }
    }
  }
  return clashes
}
