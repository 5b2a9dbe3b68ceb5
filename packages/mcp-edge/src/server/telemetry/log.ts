/**
 * mcp-edge's log: each record is one line of JSON text (`JSON.stringify`, so `wrangler dev` and
 * Workers Logs show one line per record, never a pretty-printed object), with `level`, `time`,
 * `msg` and the record's fields; fields that are `undefined` are left out. Records below the
 * level are not built. The library writes through this, never through a bare `console.*`.
 */

export const LOG_LEVEL_NAMES = ['debug', 'info', 'warn', 'error'] as const
export type LogLevelName = (typeof LOG_LEVEL_NAMES)[number]

export type LogFields = Record<string, unknown>

export interface Log {
  debug(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
}

/** Where a line goes: console.log for debug and info, console.warn and console.error above. */
export type LogSink = (level: LogLevelName, line: string) => void

const consoleSink: LogSink = (level, line) => {
  if (level === 'error') console.error(line)
  else if (level === 'warn') console.warn(line)
  else console.log(line)
}

/**
 * A log at `level` (records below it are dropped unbuilt).
 *
 * @example
 * const log = createLog('info')
 * log.warn('session id rejected', { reason: 'bad MAC' }) // {"level":"warn","time":"…","msg":"session id rejected","reason":"bad MAC"}
 */
export function createLog(level: LogLevelName = 'info', sink: LogSink = consoleSink, now: () => number = Date.now): Log {
  const floor = LOG_LEVEL_NAMES.indexOf(level)
  const at = (name: LogLevelName) =>
    LOG_LEVEL_NAMES.indexOf(name) < floor
      ? () => {}
      : (msg: string, fields?: LogFields) =>
          sink(name, JSON.stringify({ level: name, time: new Date(now()).toISOString(), msg, ...fields }))
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}

/** An error's fields for a log record: its message and, for an unexpected one, its stack. */
export function errorFields(error: unknown): LogFields {
  return error instanceof Error ? { error: `${error.name}: ${error.message}`, stack: error.stack } : { error: String(error) }
}

/** The library's own log for what happens outside any request's observer (start-up, background work). */
export const libraryLog: Log = createLog('info')
