/**
 * The scale step's client inside workerd (bench/lib/scale.mjs, `transport: 'binding'`): it holds
 * the listen streams and the 2025 sessions' GET streams itself, over service bindings to the
 * fan-out Worker's isolates (`T0`…`T3`), so a stream costs workerd no socket. A point of the curve
 * past what `ulimit -n` allows over HTTP (workerd holds two descriptors per connection) is run
 * this way; the same point over both transports shows what the sockets cost.
 *
 * One request, `POST /run` with the plan (how many listen streams, the sessions' ids, the request
 * each stream sends, how many updates each should hear), answers NDJSON for as long as the streams stay open: `{"opened":n}` once
 * every stream is open (listen streams acknowledged, GET streams answered 200), then
 * `{"round":k,"first":ms,"last":ms}` once every stream has heard its k-th update (epoch ms, this
 * isolate's clock, which workerd advances at each read), or `{"error":…}` (a stream that could not
 * open, failed, heard an update twice or more updates than were sent, or ended early). The streams are this
 * request's: they close when Node cancels its body. JavaScript: no build step of its own.
 */
import { counter } from '../../lib/count-marker.mjs'

const ACK = 'notifications/subscriptions/acknowledged'
const UPDATE = 'notifications/resources/updated'
const OPEN_BATCH = 100
const encoder = new TextEncoder()

/** The plan's streams, opened OPEN_BATCH at a time, then each round reported as it completes. */
async function run(plan, targets, line, closing) {
  const expected = plan.listeners + plan.sessions.length
  const rounds = []
  const arrived = (index, at) => {
    if (index >= plan.updates) return line({ error: `a stream heard more than the ${plan.updates} updates sent` })
    // A round's touch goes out once every stream heard the one before: a stream ahead of that heard one twice.
    if (index > 0 && (rounds[index - 1]?.count ?? 0) < expected) {
      return line({ error: `a stream heard update ${index + 1} before every stream heard update ${index}: one twice` })
    }
    if (rounds[index] === undefined) rounds[index] = { count: 0, first: at, last: at }
    const round = rounds[index]
    round.count++
    round.last = Math.max(round.last, at)
    round.first = Math.min(round.first, at)
    if (round.count === expected) line({ round: index, first: round.first, last: round.last })
  }
  const open = async (target, init, acknowledged) => {
    const response = await target.fetch('http://127.0.0.1/mcp', { ...init, signal: closing })
    if (response.status !== 200 || !(response.headers.get('content-type') ?? '').includes('text/event-stream'))
      throw new Error(`a stream answered HTTP ${response.status}: ${await response.text()}`)
    // Read raw and decoded here (no TextDecoderStream piped in): the reading is workerd's CPU too.
    const reader = response.body.getReader()
    const decoder = new TextDecoder()
    const acks = counter(ACK)
    const updates = counter(UPDATE)
    let heard = 0
    let ready
    const opened = acknowledged
      ? new Promise((resolve) => {
          ready = resolve
        })
      : Promise.resolve()
    const pump = async () => {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) {
          if (heard < plan.updates && !closing.aborted)
            line({ error: `a stream ended after ${heard} of ${plan.updates} updates` })
          return
        }
        const text = decoder.decode(value, { stream: true })
        if (acknowledged && acks(text) > 0) ready()
        for (let n = updates(text); n > 0; n--) arrived(heard++, Date.now())
      }
    }
    pump().catch((error) => {
      if (!closing.aborted) line({ error: `a stream failed after ${heard} updates: ${error?.message ?? error}` })
    })
    await opened
  }
  const listen = (i) => {
    const body = plan.listen.body.replace('"id":"l"', `"id":"l${i}"`)
    return open(targets[i % targets.length], { method: 'POST', headers: plan.listen.headers, body }, true)
  }
  const get = ({ target, sessionId }) =>
    open(
      targets[target % targets.length],
      { method: 'GET', headers: { ...plan.get.headers, 'mcp-session-id': sessionId } },
      false,
    )
  for (let start = 0; start < plan.listeners; start += OPEN_BATCH) {
    await Promise.all(Array.from({ length: Math.min(OPEN_BATCH, plan.listeners - start) }, (_, i) => listen(start + i)))
  }
  for (let start = 0; start < plan.sessions.length; start += OPEN_BATCH) {
    await Promise.all(plan.sessions.slice(start, start + OPEN_BATCH).map(get))
  }
  line({ opened: expected })
}

export default {
  async fetch(request, env) {
    if (request.method !== 'POST' || new URL(request.url).pathname !== '/run') return new Response('POST /run\n', { status: 404 })
    const plan = await request.json()
    const targets = Object.keys(env)
      .filter((name) => /^T\d+$/.test(name))
      .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)))
      .map((name) => env[name])
    const { readable, writable } = new TransformStream()
    const writer = writable.getWriter()
    const closing = new AbortController()
    const line = (value) => writer.write(encoder.encode(`${JSON.stringify(value)}\n`)).catch(() => closing.abort())
    run(plan, targets, line, closing.signal).catch((error) => line({ error: String(error?.message ?? error) }))
    return new Response(readable, { headers: { 'content-type': 'application/x-ndjson' } })
  },
}
