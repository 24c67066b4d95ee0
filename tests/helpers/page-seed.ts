/**
 * The page specs' shared seed: one conversation through the real host in which the model writes four facts the
 * user stated (two services' ports, an owner and a lead), a weaker source contradicting one port (a conflict group)
 * and an inferred language (a proposal). Written through memory_write, as a user's facts are.
 */
import { converse, writeCall } from './fact-memory-web.ts'
import type { PageHost } from './page-host.ts'

const SEED_PROMPT =
  'billing-api runs on port 7801. team payments owns billing-api. Ana leads team payments. orders-api runs on port 7000.'

/**
 * Hold the seed conversation on a page host: afterwards the store has 5 current facts, 1 conflict group and 1
 * proposal.
 * @param env - the running host.
 */
export async function seedConversation(env: Pick<PageHost, 'host' | 'model' | 'home'>): Promise<void> {
  const { host, model, home } = env
  await converse(
    host.url,
    model,
    home.workspace,
    SEED_PROMPT,
    {
      toolCalls: [
        writeCall({
          subject: 'billing-api',
          property: 'port',
          value: '7801',
          evidence: 'explicit_user',
          quote: 'billing-api runs on port 7801',
        }),
      ],
    },
    {
      toolCalls: [
        writeCall({
          subject: 'billing-api',
          property: 'owner',
          value: 'team payments',
          evidence: 'explicit_user',
          quote: 'team payments owns billing-api',
        }),
      ],
    },
    {
      toolCalls: [
        writeCall({
          subject: 'team payments',
          property: 'lead',
          value: 'Ana',
          evidence: 'explicit_user',
          quote: 'Ana leads team payments',
        }),
      ],
    },
    {
      toolCalls: [
        writeCall({
          subject: 'orders-api',
          property: 'port',
          value: '7000',
          evidence: 'explicit_user',
          quote: 'orders-api runs on port 7000',
        }),
      ],
    },
    // A weaker source contradicting the user: a conflict group. An inferred value: a proposal.
    { toolCalls: [writeCall({ subject: 'billing-api', property: 'port', value: '7900', evidence: 'observed' })] },
    { toolCalls: [writeCall({ subject: 'orders-api', property: 'language', value: 'Go', evidence: 'inferred' })] },
  )
}
