/**
 * The newest-request rule the graph tab's reads and selections follow, DOM-free: only the answer to the newest request
 * the user made is used, whatever order the answers land in, and dropping what was asked leaves no answer to use.
 * The browser half is in page-nebula-find-browser.spec.ts and page-nebula-browser.spec.ts.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { NewestRequest } from '../client/newest-request.ts'

/** Every order of a list. */
function orders<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]]
  return items.flatMap((item, index) =>
    orders([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]),
  )
}

describe('the newest request', () => {
  it('uses the answer of the newest request only, in every order three answers can land in', () => {
    for (const landing of orders([0, 1, 2])) {
      const requests = new NewestRequest()
      const tickets = [requests.start(), requests.start(), requests.start()]
      const used: number[] = []
      for (const index of landing) if (requests.isNewest(tickets[index] ?? -1)) used.push(index)
      assert.deepEqual(used, [2], `landing order ${landing.join(', ')}`)
    }
  })

  it('keeps a ticket newest however often it is asked, until another request starts', () => {
    const requests = new NewestRequest()
    const first = requests.start()
    assert.equal(requests.isNewest(first), true)
    assert.equal(requests.isNewest(first), true)
    const second = requests.start()
    assert.equal(requests.isNewest(first), false)
    assert.equal(requests.isNewest(second), true)
  })

  it('leaves no answer to use once what was asked is dropped, and a request after that is the newest', () => {
    const requests = new NewestRequest()
    const asked = requests.start()
    requests.drop()
    assert.equal(requests.isNewest(asked), false)
    const next = requests.start()
    assert.equal(requests.isNewest(next), true)
    assert.equal(requests.isNewest(asked), false)
  })
})
