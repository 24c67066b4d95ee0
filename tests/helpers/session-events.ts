/**
 * Session events for extraction tests, typed against the real rc.8 declarations so fixtures carry the host's exact
 * field paths (`user/message` data is the message; assistant text sits in `data.message.content`).
 */
import type { CallId, MessageId } from '@deepseek-ai/dsh-llm'
import type { SessionEvent } from '@deepseek-ai/dsh-session'

export const mid = (seq: number): MessageId => `message-${seq}` as MessageId
export const cid = (id: string): CallId => id as CallId
export const turnStart = (seq: number, turn: number): SessionEvent<'turn/start'> => ({
  type: 'turn/start',
  seq,
  time: seq,
  data: { turn },
})
export const turnEnd = (seq: number, turn: number): SessionEvent<'turn/end'> => ({
  type: 'turn/end',
  seq,
  time: seq,
  data: { turn, reason: { kind: 'completed' } },
})
export const stepStart = (seq: number, turn: number): SessionEvent<'step/start'> => ({
  type: 'step/start',
  seq,
  time: seq,
  data: { turn, step: 1 },
})
export const userSays = (seq: number, ...texts: string[]): SessionEvent<'user/message'> => ({
  type: 'user/message',
  seq,
  time: seq,
  surfaceOp: 'append',
  data: {
    id: mid(seq),
    role: 'user',
    content: texts.map((text) => ({ type: 'text', text })),
    source: { kind: 'user' },
  },
})
export const pluginSays = (
  seq: number,
  text: string,
  plugin = '@deepseek-ai/dsh-system-prompt',
): SessionEvent<'user/message'> => ({
  type: 'user/message',
  seq,
  time: seq,
  surfaceOp: 'append',
  data: {
    id: mid(seq),
    role: 'user',
    content: [{ type: 'text', text }],
    source: { kind: 'plugin', plugin, form: 'notice', summary: 'notice' },
  },
})
export const assistantSays = (
  seq: number,
  turn: number,
  content: SessionEvent<'assistant/message'>['data']['message']['content'],
): SessionEvent<'assistant/message'> => ({
  type: 'assistant/message',
  seq,
  time: seq,
  surfaceOp: 'append',
  data: {
    turn,
    step: 1,
    message: {
      id: mid(seq),
      role: 'assistant',
      content,
      source: { kind: 'model', provider: 'deepseek-official', model: 'deepseek-v4-flash' },
    },
  },
})
export const toolResult = (seq: number, turn: number, text: string): SessionEvent<'tool/result'> => ({
  type: 'tool/result',
  seq,
  time: seq,
  surfaceOp: 'append',
  data: {
    turn,
    step: 1,
    message: {
      id: mid(seq),
      role: 'user',
      source: { kind: 'tool', callId: cid('call-1') },
      content: [{ type: 'tool-result', toolCallId: cid('call-1'), content: [{ type: 'text', text }] }],
    },
  },
})
