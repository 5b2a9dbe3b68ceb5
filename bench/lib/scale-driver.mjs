/**
 * A point of the scale step with its streams held inside workerd (scale.mjs, transport
 * `binding`): the driver Worker (bench/workers/scale-driver/worker.js, beside the four isolates:
 * scripts/lib/pair.mjs's `driver`) opens the listen streams and the 2025 sessions' GET streams over
 * service bindings and reports each round once every stream heard it; this side opens the sessions
 * (over HTTP: a session is a request or two, not a connection held), sends each round's touch and
 * reads the reports. Arrivals are on the driver's clock (epoch ms, which workerd advances at each
 * read), the touch's sending on this process's (epoch ms): the same system clock.
 */
import { join } from 'node:path'
import { BENCH_DIR } from './env.mjs'
import { streamHeaders } from './fanout-2025.mjs'
import { ROUND_TIMEOUT_MS, touchRounds, URI } from './fanout.mjs'
import { mcpRequest } from './mcp.mjs'

/** The driver Worker's modules, its entry first (scripts/lib/pair.mjs's `driver`). */
export const DRIVER = [join(BENCH_DIR, 'workers/scale-driver/worker.js'), join(BENCH_DIR, 'lib/count-marker.mjs')]
/** How long the driver may take to open a point's streams (10,000 and more, a hundred at a time). */
const OPEN_TIMEOUT_MS = 600_000

/** `promise`, or a rejection naming `what` after `ms`. */
function within(promise, ms, what) {
  let timer
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the driver did not report within ${ms} ms while ${what}`)), ms)
    timer.unref()
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/** The driver's NDJSON reports, one per call of the function returned; an `{error}` report throws. */
function reports(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader()
  const ready = []
  let buffer = ''
  return async (what, ms) => {
    const deadline = Date.now() + ms
    while (ready.length === 0) {
      const { done, value } = await within(reader.read(), Math.max(0, deadline - Date.now()), what)
      if (done) throw new Error(`the driver's report stream ended while ${what}`)
      const lines = (buffer + value).split('\n')
      buffer = lines.pop()
      for (const line of lines) if (line !== '') ready.push(JSON.parse(line))
    }
    const report = ready.shift()
    if (report.error) throw new Error(`the driver, while ${what}: ${report.error}`)
    return report
  }
}

/**
 * Open `listeners` listen streams and the GET streams of `sessions` ({ target, sessionId }: the
 * isolate it goes to) through the driver; each stream expects `updates` updates. Returns the rounds
 * (`measure(pid, rounds)`, as fanout.mjs's) and `close()`.
 */
export async function openInWorkerd(driverUrl, touchEndpoint, listeners, sessions, updates, paceMs) {
  const controller = new AbortController()
  const plan = {
    listeners,
    sessions,
    updates,
    listen: mcpRequest('subscriptions/listen', { notifications: { resourceSubscriptions: [URI] } }, { id: 'l' }),
    get: { headers: streamHeaders('') },
  }
  const response = await fetch(new URL('/run', driverUrl), {
    method: 'POST',
    body: JSON.stringify(plan),
    signal: controller.signal,
  })
  if (response.status !== 200 || !response.body)
    throw new Error(`the driver answered HTTP ${response.status}: ${await response.text()}`)
  const next = reports(response.body)
  const close = () => controller.abort()
  try {
    const { opened } = await next('opening the streams', OPEN_TIMEOUT_MS)
    if (opened !== listeners + sessions.length)
      throw new Error(`the driver opened ${opened} of ${listeners + sessions.length} streams`)
  } catch (error) {
    close()
    throw error
  }
  let index = 0
  const expect = async () => {
    const report = await next(`waiting for round ${index}`, ROUND_TIMEOUT_MS)
    if (report.round !== index) throw new Error(`the driver reported round ${report.round}, expected ${index}`)
    index++
    return report
  }
  const rounds = touchRounds(touchEndpoint, paceMs, expect, Date.now)
  return {
    /** The rounds, then a pace's wait: a stream that heard an update twice or too late is reported by then. */
    async measure(pid, count) {
      const figures = await rounds.measure(pid, count, listeners + sessions.length)
      const late = await next('after the last round', paceMs).then(
        (report) => new Error(`the driver reported after the last round: ${JSON.stringify(report)}`),
        (error) => (error.message.startsWith('the driver did not report') ? undefined : error),
      )
      if (late) throw late
      return figures
    },
    close,
  }
}
