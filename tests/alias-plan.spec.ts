/**
 * The slot rules of an alias, pure: what becomes of one slot's current rows when a fragment entity's facts move into
 * its canonical entity: twins fold into the row that is current now, a later value at least as strong replaces an
 * earlier one and a weaker one is contested beside it, contested rows share one group, multi-valued slots keep every
 * value, and an alias never settles a contest.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { planAliasSlot, type AliasSlotPlan, type AliasSlotRow } from '../src/rules/alias-plan.ts'

const row = (
  id: number,
  side: AliasSlotRow['side'],
  claimKey: string,
  extra: Partial<AliasSlotRow> = {},
): AliasSlotRow => ({
  id,
  side,
  claimKey,
  status: 'active',
  evidence: 'observed',
  multi: false,
  validFrom: `2026-01-0${id}T00:00:00.000Z`,
  observedAt: `2026-01-0${id}T00:00:00.000Z`,
  conflictGroupId: null,
  ...extra,
})

const none: AliasSlotPlan = { supersede: [], upgrade: [], status: [], multi: [], group: null, close: [] }

describe('the slot rules of an alias', () => {
  const cases: { name: string; rows: AliasSlotRow[]; plan: Partial<AliasSlotPlan> }[] = [
    {
      name: 'a value only the fragment holds moves in as it is',
      rows: [row(1, 'fragment', 'eu-west')],
      plan: {},
    },
    {
      name: 'the same claim on both sides is one fact: the canonical row keeps it and takes the sources and the stronger evidence',
      rows: [row(1, 'canonical', '7801'), row(2, 'fragment', '7801', { evidence: 'explicit_user' })],
      plan: { supersede: [{ id: 2, by: 1, sources: true }], upgrade: [{ id: 1, evidence: 'explicit_user' }] },
    },
    {
      name: 'a twin that is current now keeps the claim over a scheduled one',
      rows: [row(1, 'canonical', '7801', { status: 'scheduled' }), row(2, 'fragment', '7801')],
      plan: { supersede: [{ id: 1, by: 2, sources: true }] },
    },
    {
      name: '同一个说法在两边是同一条事实 (a Chinese value folds the same way)',
      rows: [row(1, 'canonical', '支付团队'), row(2, 'fragment', '支付团队')],
      plan: { supersede: [{ id: 2, by: 1, sources: true }] },
    },
    {
      name: 'a later value at least as strong replaces the earlier one, whichever side holds it',
      rows: [row(1, 'canonical', 'gold'), row(2, 'fragment', 'platinum', { evidence: 'explicit_user' })],
      plan: { supersede: [{ id: 1, by: 2, sources: false }] },
    },
    {
      name: "the canonical side's later value replaces the fragment's earlier one",
      rows: [row(1, 'fragment', 'gold'), row(2, 'canonical', 'platinum')],
      plan: { supersede: [{ id: 1, by: 2, sources: false }] },
    },
    {
      name: 'a later value that is weaker is contested beside the earlier one, in a new group',
      rows: [row(1, 'canonical', 'team payments', { evidence: 'explicit_user' }), row(2, 'fragment', 'team billing')],
      plan: { status: [{ id: 2, status: 'conflict' }], group: { id: null, members: [1, 2] } },
    },
    {
      name: "contested rows of both sides share the canonical side's group, and the fragment's group closes",
      rows: [
        row(1, 'canonical', 'a', { conflictGroupId: 10 }),
        row(2, 'canonical', 'b', { status: 'conflict', conflictGroupId: 10 }),
        row(3, 'fragment', 'a', { status: 'conflict', conflictGroupId: 20 }),
        row(4, 'fragment', 'c', { status: 'conflict', conflictGroupId: 20 }),
      ],
      plan: { supersede: [{ id: 3, by: 1, sources: true }], group: { id: 10, members: [1, 2, 4] }, close: [20] },
    },
    {
      name: "a fragment's open group moves with its rows into a slot that had none",
      rows: [
        row(1, 'fragment', 'a', { conflictGroupId: 20 }),
        row(2, 'fragment', 'b', { status: 'conflict', conflictGroupId: 20 }),
      ],
      plan: { group: { id: 20, members: [1, 2] } },
    },
    {
      name: 'a contested twin folds into the current row, and its group, left with nothing to settle, closes',
      rows: [row(1, 'canonical', 'x', { status: 'conflict', conflictGroupId: 10 }), row(2, 'fragment', 'x')],
      plan: { supersede: [{ id: 1, by: 2, sources: true }], close: [10] },
    },
    {
      name: 'a multi-valued slot keeps every value, all marked multi-valued',
      rows: [row(1, 'canonical', 'go', { multi: true }), row(2, 'fragment', 'rust')],
      plan: { multi: [2] },
    },
    {
      name: 'an explicit statement replacing a value does not settle the contest around it',
      rows: [
        row(1, 'canonical', 'a', { conflictGroupId: 10 }),
        row(2, 'canonical', 'b', { status: 'conflict', conflictGroupId: 10 }),
        row(3, 'fragment', 'c', { evidence: 'explicit_user' }),
      ],
      plan: { supersede: [{ id: 1, by: 3, sources: false }], group: { id: 10, members: [3, 2] } },
    },
    {
      name: 'a scheduled value moves as it is',
      rows: [row(1, 'canonical', 'a'), row(2, 'fragment', 'b', { status: 'scheduled' })],
      plan: {},
    },
  ]
  for (const { name, rows, plan } of cases) {
    it(name, () => {
      assert.deepEqual(planAliasSlot(rows), { ...none, ...plan })
    })
  }
})
