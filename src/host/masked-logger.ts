/**
 * The plugin's logger as the host receives it: every credential in a log line masked before the host formats or
 * stores it (the format text, each text argument, and an error's message), whatever `refuseCredentials` says.
 */
import { messageOf } from '../errors.ts'
import { maskCredentials } from '../text/privacy.ts'
import type { LoggerView } from './ports.ts'

/**
 * Wrap a logger so no line it is given carries a credential in clear.
 * @param logger - the host's logger.
 * @returns a logger with the same levels; numbers and other values pass as they are, errors become their masked message.
 */
export function maskedLogger(logger: LoggerView): LoggerView {
  const masked = (args: readonly unknown[]): unknown[] =>
    args.map((arg) => {
      if (typeof arg === 'string') return maskCredentials(arg)
      if (arg instanceof Error) return maskCredentials(messageOf(arg))
      return arg
    })
  return {
    info: (format, ...args) => {
      logger.info(maskCredentials(format), ...masked(args))
    },
    warn: (format, ...args) => {
      logger.warn(maskCredentials(format), ...masked(args))
    },
  }
}
