/**
 * zod schemas of the two endpoints' answers: an OpenAI-style embedding answer (`data: [{index, embedding}]`) and a
 * Cohere/Jina-style rerank answer (`results: [{index, relevance_score | score}]`). Fields beyond these are allowed
 * (providers add `object`, `model`, `usage`, `document`); the numbers must be finite. The schemas check shape only:
 * whether the indices cover the request is for the gateways, which know how many inputs they sent.
 */
import { z } from 'zod'

/** One embedding of an answer. */
export interface EmbeddingItem {
  readonly index: number
  readonly embedding: readonly number[]
}

/** One rerank result, with the score under whichever name the provider used. */
export interface RerankItem {
  readonly index: number
  readonly score: number
}

/** The shape of an answer, or the first place it differs, as "path: problem". */
export type ShapeRead<T> =
  | { readonly ok: true; readonly items: readonly T[] }
  | { readonly ok: false; readonly problem: string }

const index = z.number().int().nonnegative()

const embeddingAnswer = z.object({
  data: z.array(z.object({ index, embedding: z.array(z.number()).min(1) })),
}) satisfies z.ZodType<{ data: EmbeddingItem[] }>

const rerankAnswer = z.object({
  results: z.array(
    z
      .object({ index, relevance_score: z.number().optional(), score: z.number().optional() })
      .refine(
        (result) => result.relevance_score !== undefined || result.score !== undefined,
        'has neither relevance_score nor score',
      ),
  ),
}) satisfies z.ZodType<{
  results: { index: number; relevance_score?: number | undefined; score?: number | undefined }[]
}>

/**
 * Read an embedding answer.
 * @param json - the parsed body.
 * @returns its items in the order given, or the first problem.
 */
export function readEmbeddingAnswer(json: unknown): ShapeRead<EmbeddingItem> {
  const parsed = embeddingAnswer.safeParse(json)
  return parsed.success ? { ok: true, items: parsed.data.data } : { ok: false, problem: firstProblem(parsed.error) }
}

/**
 * Read a rerank answer; `relevance_score` wins when a result carries both names.
 * @param json - the parsed body.
 * @returns its items in the order given, or the first problem.
 */
export function readRerankAnswer(json: unknown): ShapeRead<RerankItem> {
  const parsed = rerankAnswer.safeParse(json)
  if (!parsed.success) return { ok: false, problem: firstProblem(parsed.error) }
  // The refinement guarantees one of the two names.
  return {
    ok: true,
    items: parsed.data.results.map((result) => ({
      index: result.index,
      score: result.relevance_score ?? result.score ?? Number.NaN,
    })),
  }
}

function firstProblem(error: z.ZodError): string {
  const issue = error.issues[0]
  if (issue === undefined) return 'unknown problem'
  const path = issue.path.map(String).join('.')
  return `${path === '' ? 'the body' : path}: ${issue.message}`
}
