/**
 * The page's pure words for forgetting and putting back: the three reaches of a forget and their bodies, which of a
 * subject's facts each takes, the confirmation's heading and toast, and which history rows offer Put back.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { factsThatGo, forgetChoices, forgetHeading, forgottenToast, NO_WAY_BACK } from '../client/forget-words.ts'
import { canPutBack } from '../client/put-back.ts'
import type { FactView } from '../src/wire-types.ts'

function view(id: number, property: string, value: string, status = 'active', extra: Partial<FactView> = {}): FactView {
  return {
    id,
    subject: '支付服务',
    entityKey: 'e:支付服务',
    property,
    qualifiers: {},
    scope: 'global',
    scopeKind: 'global',
    scopeName: 'global',
    value,
    masked: false,
    status,
    evidence: 'observed',
    confidence: 1,
    sensitivity: null,
    modelUseAllowed: true,
    multi: false,
    validFrom: '2026-03-01T09:00:00.000Z',
    validTo: null,
    observedAt: '2026-03-01T09:00:00.000Z',
    recordedAt: '2026-03-01T09:00:00.000Z',
    supersededBy: null,
    conflictGroupId: null,
    revision: 1,
    origin: 'tool',
    sessionId: null,
    turn: null,
    quote: null,
    foldedCount: 0,
    foldedFrom: [],
    cues: [],
    pinnedAt: null,
    ...extra,
  }
}

describe('forgetting from the page, in words', () => {
  const port = view(1, '端口', '7801')
  const oldPort = view(2, '端口', '7701', 'superseded')
  const owner = view(3, 'owner', 'team-pay')

  it('offers this fact, its subject · property and the whole subject, each with the body fact-forget takes', () => {
    assert.deepEqual(
      forgetChoices(port).map((choice) => [choice.reach, choice.body]),
      [
        ['fact', { id: 1 }],
        ['property', { entityKey: 'e:支付服务', property: '端口' }],
        ['subject', { entityKey: 'e:支付服务' }],
      ],
    )
  })

  it('lists what each reach takes, history included, and only the fact itself while the subject loads', () => {
    const all = [port, oldPort, owner]
    assert.deepEqual(
      factsThatGo('fact', port, all).map((fact) => fact.id),
      [1],
    )
    assert.deepEqual(
      factsThatGo('property', port, all).map((fact) => fact.id),
      [1, 2],
    )
    assert.deepEqual(
      factsThatGo('subject', port, all).map((fact) => fact.id),
      [1, 2, 3],
    )
    assert.deepEqual(
      factsThatGo('subject', port, undefined).map((fact) => fact.id),
      [1],
    )
  })

  it('names what goes and how many, and says the claim cannot be written back', () => {
    assert.equal(forgetHeading('fact', port, 1), 'Forget 支付服务 · 端口 = 7801?')
    assert.equal(forgetHeading('property', port, 2), 'Forget 支付服务 · 端口 (2 facts)?')
    assert.equal(forgetHeading('subject', port, 1), 'Forget everything about 支付服务 (1 fact)?')
    assert.match(NO_WAY_BACK, /cannot be written back/u)
    assert.equal(forgottenToast([port]), 'Forgot 支付服务 · 端口 = 7801')
    assert.equal(forgottenToast([port, oldPort, owner]), 'Forgot 3 facts of 支付服务')
    assert.equal(forgottenToast([]), 'Nothing was forgotten')
  })
})

describe('which past values offer Put back', () => {
  it('a past value whose text is not current in the slot, never a current one or a withheld credential', () => {
    const current = view(3, '端口', '7901')
    const history = [
      current,
      view(2, '端口', '7801', 'superseded'),
      view(1, '端口', '7901', 'expired'),
      view(4, '端口', '••••', 'retired', { masked: true }),
    ]
    assert.deepEqual(
      history.map((row) => canPutBack(row, history)),
      [false, true, false, false],
    )
  })
})
