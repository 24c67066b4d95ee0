// Proves decideWrite's slot rules: proposals, duplicates (by claim key and by restatement), settlement, scheduling, multi-valued slots, supersession and conflicts.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import {
  decideWrite,
  evidenceRank,
  PROPOSAL_CONFIDENCE_FLOOR,
  restatementApplies,
  type PolicyCandidate,
  type SlotRow,
  type WriteDecision,
} from '../src/rules/write-policy.ts'
import { EVIDENCE_ORDER, type Evidence, type FactId, type FactStatus } from '../src/types.ts'

const fid = (n: number): FactId => n as FactId

function candidate(overrides: Partial<PolicyCandidate> = {}): PolicyCandidate {
  return {
    claimKey: 'claim-new',
    evidence: 'observed',
    confidence: 0.9,
    inferred: false,
    multi: false,
    scheduled: false,
    ...overrides,
  }
}

function row(id: number, status: FactStatus, evidence: Evidence, overrides: Partial<SlotRow> = {}): SlotRow {
  return {
    id: fid(id),
    claimKey: `claim-${id}`,
    status,
    evidence,
    multi: false,
    conflictGroupId: null,
    value: `value ${id}`,
    scope: 'global',
    sensitive: false,
    ...overrides,
  }
}

const plainActive: WriteDecision = {
  kind: 'insert',
  status: 'active',
  supersede: [],
  retire: [],
  conflict: undefined,
  closeGroups: [],
  joinGroup: undefined,
  multi: false,
}

describe('decideWrite: proposals', () => {
  it('turns an inferred value into a proposal with reason inferred, even from the user', () => {
    assert.deepEqual(decideWrite(candidate({ inferred: true, evidence: 'explicit_user' }), []), {
      kind: 'propose',
      reason: 'inferred',
    })
  })

  it('turns an inferred value into a proposal even when it duplicates a current row', () => {
    const slot = [row(1, 'active', 'observed', { claimKey: 'claim-new' })]
    assert.deepEqual(decideWrite(candidate({ inferred: true }), slot), { kind: 'propose', reason: 'inferred' })
  })

  it("honours a caller's own confidence floor (extractConfidenceMin), higher or lower than the default", () => {
    assert.deepEqual(decideWrite(candidate({ confidence: 0.7, confidenceFloor: 0.8 }), []), {
      kind: 'propose',
      reason: 'low_confidence',
    })
    assert.equal(decideWrite(candidate({ confidence: 0.5, confidenceFloor: 0.4 }), []).kind, 'insert')
    assert.equal(decideWrite(candidate({ confidence: 0.8, confidenceFloor: 0.8 }), []).kind, 'insert')
  })

  it('turns confidence 0.59 into a low_confidence proposal', () => {
    assert.deepEqual(decideWrite(candidate({ confidence: 0.59 }), []), { kind: 'propose', reason: 'low_confidence' })
  })

  it('accepts confidence exactly 0.6 as a fact, not a proposal', () => {
    assert.equal(PROPOSAL_CONFIDENCE_FLOOR, 0.6)
    assert.deepEqual(decideWrite(candidate({ confidence: 0.6 }), []), plainActive)
  })
})

describe('decideWrite: duplicates', () => {
  it('recognises a duplicate by claim key and upgrades weaker stored evidence', () => {
    const slot = [row(7, 'active', 'observed', { claimKey: 'claim-new' })]
    assert.deepEqual(decideWrite(candidate({ evidence: 'confirmed_user' }), slot), {
      kind: 'duplicate',
      factId: fid(7),
      upgradeTo: 'confirmed_user',
      settle: undefined,
      promoteNow: false,
    })
  })

  it('does not upgrade when the candidate evidence is equal or weaker', () => {
    const slot = [row(7, 'active', 'confirmed_user', { claimKey: 'claim-new' })]
    const equal = decideWrite(candidate({ evidence: 'confirmed_user' }), slot)
    const weaker = decideWrite(candidate({ evidence: 'unverified' }), slot)
    assert.deepEqual(equal, {
      kind: 'duplicate',
      factId: fid(7),
      upgradeTo: undefined,
      settle: undefined,
      promoteNow: false,
    })
    assert.deepEqual(weaker, {
      kind: 'duplicate',
      factId: fid(7),
      upgradeTo: undefined,
      settle: undefined,
      promoteNow: false,
    })
  })

  it('settles a contested slot around the conflict row the user restates', () => {
    const slot = [
      row(1, 'active', 'observed'),
      row(2, 'conflict', 'unverified', { claimKey: 'claim-new', conflictGroupId: 5 }),
      row(3, 'conflict', 'unverified', { conflictGroupId: 5 }),
    ]
    assert.deepEqual(decideWrite(candidate({ evidence: 'explicit_user' }), slot), {
      kind: 'duplicate',
      factId: fid(2),
      upgradeTo: 'explicit_user',
      settle: { supersede: [fid(1)], retire: [fid(3)], closeGroups: [5] },
      promoteNow: false,
    })
  })

  it('settles a contested slot around the active row the user restates, retiring its rivals', () => {
    const slot = [
      row(1, 'active', 'explicit_user', { claimKey: 'claim-new', conflictGroupId: 4 }),
      row(2, 'conflict', 'observed', { conflictGroupId: 4 }),
    ]
    assert.deepEqual(decideWrite(candidate({ evidence: 'explicit_user' }), slot), {
      kind: 'duplicate',
      factId: fid(1),
      upgradeTo: undefined,
      settle: { supersede: [], retire: [fid(2)], closeGroups: [4] },
      promoteNow: false,
    })
  })

  it('does not settle when a non-user source restates a contested value', () => {
    const slot = [
      row(1, 'active', 'observed'),
      row(2, 'conflict', 'unverified', { claimKey: 'claim-new', conflictGroupId: 5 }),
    ]
    assert.deepEqual(decideWrite(candidate({ evidence: 'observed' }), slot), {
      kind: 'duplicate',
      factId: fid(2),
      upgradeTo: 'observed',
      settle: undefined,
      promoteNow: false,
    })
  })

  it('takes a restated scheduled value into effect now instead of settling around it', () => {
    const slot = [
      row(1, 'active', 'observed'),
      row(2, 'conflict', 'unverified', { conflictGroupId: 5 }),
      row(3, 'scheduled', 'observed', { claimKey: 'claim-new' }),
    ]
    const decision = decideWrite(candidate({ evidence: 'explicit_user' }), slot)
    assert.deepEqual(decision, {
      kind: 'duplicate',
      factId: fid(3),
      upgradeTo: 'explicit_user',
      settle: undefined,
      promoteNow: true,
    })
  })

  it('leaves a scheduled row scheduled when the candidate is scheduled too', () => {
    const slot = [row(1, 'active', 'observed'), row(3, 'scheduled', 'observed', { claimKey: 'claim-new' })]
    const decision = decideWrite(candidate({ evidence: 'observed', scheduled: true }), slot)
    assert.deepEqual(decision, {
      kind: 'duplicate',
      factId: fid(3),
      upgradeTo: undefined,
      settle: undefined,
      promoteNow: false,
    })
  })

  it('does not settle an explicit_user duplicate when no group is open', () => {
    const slot = [row(1, 'active', 'observed', { claimKey: 'claim-new' })]
    assert.deepEqual(decideWrite(candidate({ evidence: 'explicit_user' }), slot), {
      kind: 'duplicate',
      factId: fid(1),
      upgradeTo: 'explicit_user',
      settle: undefined,
      promoteNow: false,
    })
  })
})

describe('decideWrite: scheduled and multi-valued inserts', () => {
  it('inserts a future value as scheduled without touching the active row', () => {
    const slot = [row(1, 'active', 'observed')]
    assert.deepEqual(decideWrite(candidate({ scheduled: true, evidence: 'explicit_user' }), slot), {
      ...plainActive,
      status: 'scheduled',
    })
  })

  it('inserts a multi candidate as plain active with nothing superseded', () => {
    const slot = [row(1, 'active', 'unverified')]
    assert.deepEqual(decideWrite(candidate({ multi: true, evidence: 'explicit_user' }), slot), {
      ...plainActive,
      multi: true,
    })
  })

  it('inserts into a slot holding multi rows as plain active with nothing superseded', () => {
    const slot = [row(1, 'active', 'observed', { multi: true }), row(2, 'active', 'observed', { multi: true })]
    assert.deepEqual(decideWrite(candidate({ evidence: 'explicit_user' }), slot), { ...plainActive, multi: true })
  })

  it('ignores a scheduled multi row when deciding whether the slot is multi-valued', () => {
    const slot = [row(1, 'active', 'observed'), row(2, 'scheduled', 'observed', { multi: true })]
    const decision = decideWrite(candidate({ evidence: 'explicit_user' }), slot)
    assert.deepEqual(decision, { ...plainActive, supersede: [fid(1)] })
  })
})

describe('decideWrite: single-valued slots', () => {
  it('inserts into an empty slot as active', () => {
    assert.deepEqual(decideWrite(candidate({ evidence: 'unverified' }), []), plainActive)
  })

  it('lets explicit_user supersede the active row, retire conflict rivals and close open groups', () => {
    const slot = [
      row(1, 'active', 'explicit_user', { conflictGroupId: 3 }),
      row(2, 'conflict', 'observed', { conflictGroupId: 3 }),
      row(4, 'conflict', 'unverified', { conflictGroupId: 3 }),
      row(5, 'scheduled', 'observed'),
    ]
    assert.deepEqual(decideWrite(candidate({ evidence: 'explicit_user' }), slot), {
      kind: 'insert',
      status: 'active',
      supersede: [fid(1)],
      retire: [fid(2), fid(4)],
      conflict: undefined,
      closeGroups: [3],
      joinGroup: undefined,
      multi: false,
    })
  })

  it('lets explicit_user settle a slot whose only current rows are conflicts', () => {
    const slot = [
      row(2, 'conflict', 'observed', { conflictGroupId: 8 }),
      row(3, 'conflict', 'observed', { conflictGroupId: 8 }),
    ]
    assert.deepEqual(decideWrite(candidate({ evidence: 'explicit_user' }), slot), {
      kind: 'insert',
      status: 'active',
      supersede: [],
      retire: [fid(2), fid(3)],
      conflict: undefined,
      closeGroups: [8],
      joinGroup: undefined,
      multi: false,
    })
  })

  it('lets observed supersede observed (equal evidence is trusted)', () => {
    const slot = [row(1, 'active', 'observed')]
    assert.deepEqual(decideWrite(candidate({ evidence: 'observed' }), slot), { ...plainActive, supersede: [fid(1)] })
  })

  it('lets confirmed_user supersede observed (stronger evidence is trusted)', () => {
    const slot = [row(1, 'active', 'observed')]
    assert.deepEqual(decideWrite(candidate({ evidence: 'confirmed_user' }), slot), {
      ...plainActive,
      supersede: [fid(1)],
    })
  })

  it("has a trusted replacement join the slot's open conflict group", () => {
    const slot = [
      row(1, 'active', 'observed', { conflictGroupId: 6 }),
      row(2, 'conflict', 'unverified', { conflictGroupId: 6 }),
    ]
    assert.deepEqual(decideWrite(candidate({ evidence: 'observed' }), slot), {
      ...plainActive,
      supersede: [fid(1)],
      joinGroup: 6,
    })
  })

  it('records observed over explicit_user as a conflict against the active row in a new group', () => {
    const slot = [row(1, 'active', 'explicit_user')]
    assert.deepEqual(decideWrite(candidate({ evidence: 'observed' }), slot), {
      kind: 'insert',
      status: 'conflict',
      supersede: [],
      retire: [],
      conflict: { groupId: null, against: [fid(1)] },
      closeGroups: [],
      joinGroup: undefined,
      multi: false,
    })
  })

  it('joins an existing open group when contradicting a stronger active row', () => {
    const slot = [
      row(1, 'active', 'explicit_user', { conflictGroupId: 9 }),
      row(2, 'conflict', 'observed', { conflictGroupId: 9 }),
    ]
    assert.deepEqual(decideWrite(candidate({ evidence: 'unverified' }), slot), {
      kind: 'insert',
      status: 'conflict',
      supersede: [],
      retire: [],
      conflict: { groupId: 9, against: [fid(1)] },
      closeGroups: [],
      joinGroup: undefined,
      multi: false,
    })
  })

  it('contradicts the open rivals when the slot has no active row', () => {
    const slot = [row(2, 'conflict', 'observed', { conflictGroupId: 9 })]
    assert.deepEqual(decideWrite(candidate({ evidence: 'observed' }), slot), {
      kind: 'insert',
      status: 'conflict',
      supersede: [],
      retire: [],
      conflict: { groupId: 9, against: [fid(2)] },
      closeGroups: [],
      joinGroup: undefined,
      multi: false,
    })
  })

  it('treats a slot with only a scheduled row as empty for a present value', () => {
    const slot = [row(5, 'scheduled', 'explicit_user')]
    assert.deepEqual(decideWrite(candidate({ evidence: 'unverified' }), slot), plainActive)
  })
})

describe('decideWrite: restatements the near-duplicate gate found', () => {
  const restates = { factId: fid(2), similarity: 0.81 }

  it('answers a restatement of a multi-valued row as a duplicate of that row, raising its evidence as a claim-key duplicate would', () => {
    const slot = [row(1, 'active', 'observed', { multi: true }), row(2, 'active', 'observed', { multi: true })]
    assert.deepEqual(decideWrite(candidate({ evidence: 'explicit_user' }), slot, restates), {
      kind: 'duplicate',
      factId: fid(2),
      upgradeTo: 'explicit_user',
      settle: undefined,
      promoteNow: false,
      restatement: restates,
    })
  })

  it('lets the same claim key win over a restatement of another row', () => {
    const slot = [
      row(1, 'active', 'observed', { multi: true, claimKey: 'claim-new' }),
      row(2, 'active', 'observed', { multi: true }),
    ]
    assert.deepEqual(decideWrite(candidate({ multi: true }), slot, restates), {
      kind: 'duplicate',
      factId: fid(1),
      upgradeTo: undefined,
      settle: undefined,
      promoteNow: false,
    })
  })

  it("answers a restatement of a single-valued slot's current value as a duplicate too, from a weaker source without a conflict", () => {
    const slot = [row(2, 'active', 'explicit_user')]
    assert.equal(restatementApplies(candidate()), true)
    assert.deepEqual(decideWrite(candidate({ evidence: 'observed' }), slot, restates), {
      kind: 'duplicate',
      factId: fid(2),
      upgradeTo: undefined,
      settle: undefined,
      promoteNow: false,
      restatement: restates,
    })
  })

  it('leaves a single-valued slot to its rules when the gate found no restatement: a different value supersedes or conflicts', () => {
    const slot = [row(2, 'active', 'observed')]
    assert.deepEqual(decideWrite(candidate({ evidence: 'explicit_user' }), slot), {
      kind: 'insert',
      status: 'active',
      supersede: [fid(2)],
      retire: [],
      conflict: undefined,
      closeGroups: [],
      joinGroup: undefined,
      multi: false,
    })
  })

  it('ignores a restatement for an exact-only write (a page edit, a restored backup)', () => {
    const slot = [row(2, 'active', 'observed', { multi: true })]
    assert.equal(restatementApplies(candidate({ exactOnly: true })), false)
    assert.deepEqual(decideWrite(candidate({ exactOnly: true }), slot, restates), { ...plainActive, multi: true })
  })

  it('still turns an inferred or unsure restatement into a proposal', () => {
    const slot = [row(2, 'active', 'observed', { multi: true })]
    assert.deepEqual(decideWrite(candidate({ inferred: true }), slot, restates), {
      kind: 'propose',
      reason: 'inferred',
    })
    assert.deepEqual(decideWrite(candidate({ confidence: 0.4 }), slot, restates), {
      kind: 'propose',
      reason: 'low_confidence',
    })
  })
})

describe('evidenceRank', () => {
  it('orders explicit_user < confirmed_user < observed < unverified', () => {
    assert.deepEqual(EVIDENCE_ORDER, ['explicit_user', 'confirmed_user', 'observed', 'unverified'])
    assert.equal(evidenceRank('explicit_user'), 0)
    assert.equal(evidenceRank('confirmed_user'), 1)
    assert.equal(evidenceRank('observed'), 2)
    assert.equal(evidenceRank('unverified'), 3)
  })
})

describe('decideWrite: folded lines', () => {
  const line = (date: string): string => `nightly backup finished ${date}`
  const dated = (overrides: Partial<PolicyCandidate> = {}): PolicyCandidate =>
    candidate({ mayFold: true, value: line('2026-11-25'), scope: 'global', sensitivity: null, ...overrides })

  it('folds into the active row holding the same line on another day, taking its value when the date is later', () => {
    const slot = [row(3, 'active', 'observed', { value: line('2026-11-24') })]
    assert.deepEqual(decideWrite(dated(), slot), {
      kind: 'fold',
      factId: fid(3),
      takesValue: true,
      upgradeTo: undefined,
    })
    assert.deepEqual(decideWrite(dated({ value: line('2026-11-23') }), slot), {
      kind: 'fold',
      factId: fid(3),
      takesValue: false,
      upgradeTo: undefined,
    })
    assert.deepEqual(decideWrite(dated({ evidence: 'explicit_user' }), slot), {
      kind: 'fold',
      factId: fid(3),
      takesValue: true,
      upgradeTo: 'explicit_user',
    })
  })

  it('picks the newest of several rows holding the line in a multi-valued slot', () => {
    const slot = [
      row(3, 'active', 'observed', { multi: true, value: line('2026-11-20') }),
      row(9, 'active', 'observed', { multi: true, value: line('2026-11-24') }),
    ]
    assert.deepEqual(decideWrite(dated({ multi: true }), slot), {
      kind: 'fold',
      factId: fid(9),
      takesValue: true,
      upgradeTo: undefined,
    })
  })

  it('leaves the slot rules to decide what may not rewrite the row: a weaker source, an import, a scheduled or sensitive value, a contested slot', () => {
    const slot = [row(3, 'active', 'confirmed_user', { value: line('2026-11-24') })]
    assert.equal(decideWrite(dated({ evidence: 'observed' }), slot).kind, 'insert')
    assert.equal(decideWrite(dated({ evidence: 'confirmed_user', mayReplace: false }), slot).kind, 'insert')
    assert.equal(decideWrite(dated({ evidence: 'confirmed_user', scheduled: true }), slot).kind, 'insert')
    assert.equal(decideWrite(dated({ evidence: 'confirmed_user', sensitivity: 'email' }), slot).kind, 'insert')
    assert.equal(decideWrite(dated({ evidence: 'confirmed_user', mayFold: false }), slot).kind, 'insert')
    assert.equal(
      decideWrite(dated({ evidence: 'confirmed_user' }), [
        row(3, 'active', 'confirmed_user', { value: line('2026-11-24'), sensitive: true }),
      ]).kind,
      'insert',
    )
    assert.equal(decideWrite(dated({ evidence: 'confirmed_user', scope: 'team-a' }), slot).kind, 'insert')
    const contested = [
      ...slot.map((r) => ({ ...r, conflictGroupId: 4 })),
      row(5, 'conflict', 'observed', { conflictGroupId: 4 }),
    ]
    assert.equal(decideWrite(dated({ evidence: 'confirmed_user' }), contested).kind, 'insert')
  })

  it('does not fold a line dated after the value holds from', () => {
    const slot = [row(3, 'active', 'observed', { value: line('2026-11-24') })]
    assert.equal(decideWrite(dated({ validFrom: '2026-11-25T08:00:00.000Z' }), slot).kind, 'fold')
    assert.equal(
      decideWrite(dated({ value: line('2026-11-27'), validFrom: '2026-11-25T08:00:00.000Z' }), slot).kind,
      'insert',
    )
  })

  it('never folds a value that differs by more than its date', () => {
    const slot = [row(3, 'active', 'observed', { value: 'port 7801' })]
    assert.equal(decideWrite(dated({ value: 'port 7802' }), slot).kind, 'insert')
  })
})
