/** The read verbs of the fact library: facts (paged, filtered), fact (detail), entity, conflicts. */
import { ok, refuse, verb } from './verb.ts'
import { STATUS_VALUES } from './wire.schema.ts'
import { canonicalEntity } from '../text/normalize.ts'
import { andExpression, queryTerms, searchTerms } from '../text/tokenize.ts'
import { subjectCandidates } from '../retrieval/subject-names.ts'
import type { NamedEntity } from '../store/fact-store.ts'
import type { FactStatus } from '../types.ts'
import { conflictView, factView, scopeList, sourceView } from './views.ts'
import { otherMachines } from '../sync/side-origins.ts'
import { aliasView } from './renames.ts'

/** Rows per page. */
export const PAGE_SIZE = 100
/** Most full-text matches a text filter pages through. */
const TEXT_FILTER_CAP = 5000

const STATUS_SETS: Readonly<Record<'current' | 'history' | 'all', readonly FactStatus[]>> = {
  current: ['active', 'scheduled', 'conflict'],
  history: ['superseded', 'retired', 'expired'],
  all: STATUS_VALUES,
}

/**
 * facts: 100 rows at a time, newest first, with a cursor for Load more and filters for status, evidence, subject,
 * text, conversation and scope; the answer lists every scope the store holds facts in, for the scope filter, and with
 * a text filter counts the facts it matches on every page (`matched`). A text that names a subject by an old name (an
 * alias) matches that subject's facts too, and `aliasMatches` says which old name named which subject.
 */
export const factsVerb = verb('facts', {
  run(body, context) {
    const statuses =
      body.status === undefined
        ? STATUS_SETS.current
        : typeof body.status === 'string'
          ? STATUS_SETS[body.status]
          : body.status
    let ids: number[] | undefined = body.ids === undefined ? undefined : [...body.ids]
    let aliasMatches: { alias: string; subject: string; entityKey: string }[] = []
    if (body.text !== undefined) {
      const terms = queryTerms(body.text, 16)
      const aliased = context.stores.facts
        .namedEntities(subjectCandidates(body.text))
        .filter((named) => named.alias !== null)
      aliasMatches = aliased.map((named) => ({
        alias: named.alias ?? '',
        subject: named.canonicalText ?? named.entityKey,
        entityKey: named.entityKey,
      }))
      const expressions = [
        ...(terms.length === 0 ? [] : [andExpression(terms)]),
        ...aliased.map((named) => underOwnName(named, terms)),
      ]
      const matched = [
        ...new Set(
          expressions.flatMap((expression) =>
            context.stores.facts.matchText(expression, TEXT_FILTER_CAP, undefined).map((hit) => hit.id),
          ),
        ),
      ]
      const asked = ids === undefined ? undefined : new Set(ids)
      ids = asked === undefined ? matched : matched.filter((factId) => asked.has(factId))
    }
    const limit = body.limit ?? PAGE_SIZE
    const filter = {
      statuses,
      evidence: body.evidence,
      entityPrefix: body.subject === undefined ? undefined : canonicalEntity(body.subject),
      ids,
      sessionId: body.session,
      scope: body.scope,
    }
    const page = context.stores.library.factsPage({
      ...filter,
      beforeId: body.cursor === undefined ? undefined : Number(body.cursor),
      limit,
    })
    const last = page.facts.at(-1)
    return ok({
      facts: page.facts.map(factView),
      nextCursor: page.more && last !== undefined ? String(last.id) : null,
      // A text filter says how many facts it matches on every page (at most the full-text cap).
      matched: body.text === undefined ? null : context.stores.library.countFacts(filter),
      statusCounts: context.stores.library.statusCounts(),
      scopes: scopeList(context.stores.library.scopes()),
      // A subject the text named by an old name (an alias a rename or merge left), for the rows to say so.
      aliasMatches,
      generation: context.stores.db.generation(),
    })
  },
})

/**
 * A text filter that named a subject by an old name, as the filter its facts match: the subject's own name (which
 * they hold) as a phrase, and every other word of the text.
 */
function underOwnName(named: NamedEntity, terms: readonly string[]): string {
  const aliasTerms = new Set(searchTerms(named.aliasKey ?? ''))
  const name = `"${searchTerms(named.entityKey).join(' ').replaceAll('"', '""')}"`
  const rest = terms.filter((term) => !aliasTerms.has(term))
  return rest.length === 0 ? name : `${name} AND ${andExpression(rest)}`
}

/** fact: one fact with its value history (the whole slot, newest first), its sources and the edits that touched it. */
export const factVerb = verb('fact', {
  run(body, context) {
    const [fact] = context.stores.facts.getFacts([body.id])
    if (fact === undefined || fact.status === 'forgotten') return refuse('not_found', `no fact has id ${body.id}`)
    const masked = fact.sensitivity === 'credential'
    return ok({
      fact: factView(fact),
      history: context.stores.library.slotRows(fact.slotKey).map(factView),
      sources: context.stores.library.sources(fact.id).map((source) => sourceView(source, masked)),
      edits: context.stores.library.editsOf(fact.id),
      generation: context.stores.db.generation(),
    })
  },
})

/** entity: one subject and all its facts, grouped by property, with its aliases (names and properties renamed into it). */
export const entityVerb = verb('entity', {
  run(body, context) {
    const asked = 'entityKey' in body ? body.entityKey : canonicalEntity(body.subject)
    // A name that is an alias, and holds no fact of its own, opens the subject it names.
    const direct = context.stores.library.entity(asked)
    const entity =
      direct !== undefined && direct.facts.length > 0
        ? direct
        : (context.stores.library.entity(context.stores.facts.renames.canonicalEntityKey(asked)) ?? direct)
    if (entity === undefined)
      return refuse(
        'not_found',
        `no subject is known as ${JSON.stringify('subject' in body ? body.subject : body.entityKey)}`,
      )
    const properties = new Map<string, ReturnType<typeof factView>[]>()
    for (const fact of entity.facts) {
      const list = properties.get(fact.property) ?? []
      list.push(factView(fact))
      properties.set(fact.property, list)
    }
    return ok({
      entity: { key: entity.key, display: entity.display, createdAt: entity.createdAt },
      properties: [...properties.entries()].map(([property, facts]) => ({ property, facts })),
      aliases: context.stores.facts.renames.aliasesOf(entity.key).map(aliasView),
      generation: context.stores.db.generation(),
    })
  },
})

/**
 * subject-find: the subject a name means, as `entity` would open it (the subject itself, else the one an alias names:
 * an old name, a name merged into it), or `entityKey: null` when no subject with a fact goes by it. A miss is an
 * answer, not an error: the page's "Find a star" box asks as the user types.
 */
export const subjectFindVerb = verb('subject-find', {
  run(body, context) {
    const asked = canonicalEntity(body.name)
    const direct = context.stores.library.entity(asked)
    const entity =
      direct !== undefined && direct.facts.length > 0
        ? direct
        : context.stores.library.entity(context.stores.facts.renames.canonicalEntityKey(asked))
    const found = entity !== undefined && entity.facts.length > 0 ? entity : undefined
    return ok({
      entityKey: found?.key ?? null,
      display: found?.display ?? null,
      generation: context.stores.db.generation(),
    })
  },
})

/** conflicts: every open conflict group with both sides' dates and evidence, and the machines sides came from. */
export const conflictsVerb = verb('conflicts', {
  run(_body, context) {
    const groups = context.stores.library.openConflicts()
    const origins = otherMachines(
      context.stores.sync.sidesOf(groups.flatMap((group) => group.rows.map((row) => row.id))),
    )
    return ok({
      groups: groups.map((group) => conflictView(group, origins)),
      generation: context.stores.db.generation(),
    })
  },
})
