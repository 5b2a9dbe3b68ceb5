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
  // Workers' clock stands still while code runs, so the requests of one moment share one string.
  let last = Number.NaN
  let time = ''
  const timeOf = (ms: number) => {
    if (ms !== last) {
      last = ms
      time = isoTime(ms)
    }
    return time
  }
  const at = (name: LogLevelName) => {
    if (LOG_LEVEL_NAMES.indexOf(name) < floor) return () => {}
    const head = `{"level":"${name}","time":"`
    // The last message's JSON: a level logs the same few messages over and over ("mcp request").
    let lastMsg = ''
    let msgJson = '""'
    // One JSON.stringify of the record's own fields, after the three every line starts with.
    return (msg: string, fields?: LogFields) => {
      const rest = fields === undefined ? '{}' : JSON.stringify(withoutOwnNames(fields))
      if (msg !== lastMsg) {
        lastMsg = msg
        msgJson = JSON.stringify(msg)
      }
      sink(name, `${head}${timeOf(now())}","msg":${msgJson}${rest === '{}' ? '}' : `,${rest.slice(1)}`}`)
    }
  }
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}

/**
 * `new Date(ms).toISOString()`, built from the UTC fields for years 0–9999 (every clock reading a
 * log line gets); other years and invalid times are left to `toISOString` (its six-digit signed
 * years, its RangeError). An isolate's first `toISOString`, on its first request's log line, is
 * dear: V8 sets up ICU's time-zone names for it (about 110,000 instructions in workerd, callgrind),
 * which the UTC getters never need.
 *
 * @example
 * isoTime(0) // '1970-01-01T00:00:00.000Z'
 */
export function isoTime(ms: number): string {
  const date = new Date(ms)
  const year = date.getUTCFullYear()
  if (!(year >= 0 && year <= 9999)) return date.toISOString()
  return `${pad(year, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}T${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}.${pad(date.getUTCMilliseconds(), 3)}Z`
}

const pad = (value: number, digits: number) => String(value).padStart(digits, '0')

/** A record's fields without `level`, `time` and `msg`: the line's own come first and win. */
function withoutOwnNames(fields: LogFields): LogFields {
  if (!('level' in fields || 'time' in fields || 'msg' in fields)) return fields
  const { level: _level, time: _time, msg: _msg, ...rest } = fields
  return rest
}

/** An error's fields for a log record: its message and, for an unexpected one, its stack. */
export function errorFields(error: unknown): LogFields {
  return error instanceof Error ? { error: `${error.name}: ${error.message}`, stack: error.stack } : { error: String(error) }
}

/** The library's own log for what happens outside any request's observer (start-up, background work). */
export const libraryLog: Log = createLog('info')

/** Messages `warnOnce` has logged in this isolate (at most `MAX_WARNED`, then it starts again). */
const warned = new Set<string>()
const MAX_WARNED = 256

/**
 * `libraryLog.warn(message)`, once per isolate for each message: a configuration warning from code
 * that runs again and again (a handler built per request by a factory) is said once, not per request.
 *
 * @example
 * warnOnce('createMcpHandler option keepAliveMs does nothing on mcp-edge: …')
 */
export function warnOnce(message: string): void {
  if (warned.has(message)) return
  // Bounded: a message naming what a request chose (a factory's tools) could be new each time.
  if (warned.size >= MAX_WARNED) warned.clear()
  warned.add(message)
  libraryLog.warn(message)
}
