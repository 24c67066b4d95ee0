/**
 * The red-team corpus (tests/fixtures/red-team.jsonl: instructions dressed as facts, prompt injection, notices and
 * runtime context quoted back, transcripts) and an order check written independently of the shape gate's patterns,
 * shared by the rule-path and model-path tests.
 */
import { readFileSync } from 'node:fs'

/** Orders, overrides and destructive commands, written independently of the gate's own patterns. */
export const ORDER =
  /\brm\s+-\w|\bdrop\s+table\b|\bdelete\s+from\b|\bignore\b|\bdisregard\b|\bdisable\b|\byou\s+(?:must|should|are now|need)\b|\byou\s+to\b|\balways\s+(?:run|obey)\b|\bnever\s+tell\b|\bsystem prompt\b|\bsudo\b|\|\s*sh\b|\bexfiltrate\b|\bobey\b|--force\b|\bformat\s+c:|\bact as\b|\bgrant\b|删除|清空|忽略|你必须|你要|每次都要|执行|上传|系统提示/iu

export const RED_TEAM: readonly { readonly text: string; readonly why: string }[] = readFileSync(
  new URL('../fixtures/red-team.jsonl', import.meta.url),
  'utf8',
)
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as { text: string; why: string })
