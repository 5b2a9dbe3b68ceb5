/**
 * One load run: autocannon on loopback sends `amount` copies of a request over `connections`
 * keep-alive connections. Latency percentiles come from every response time autocannon reports
 * (float ms; its own histogram rounds to whole ms). Requests per second run from the start to the
 * last response (autocannon resolves only at its next sampling tick). CPU per request is the
 * workerd process's utime + stime across the run, divided by the requests. `othersShare` is the
 * share of the machine's CPU that neither workerd nor this process used during the run: other
 * processes competing for the two cores, which disturb the figures.
 */
import autocannon from 'autocannon'
import { availableParallelism } from 'node:os'
import { cpuMs, machineBusyMs } from './proc.mjs'
import { percentile } from './stats.mjs'

/** `expectBody`: every response must equal it (autocannon counts the others as mismatches). */
export async function runLoad(target, request, { connections, amount, expectBody }) {
  const times = []
  let lastResponse = 0
  const cpuBefore = cpuMs(target.pid)
  const busyBefore = machineBusyMs()
  const ownBefore = process.cpuUsage()
  const started = performance.now()
  const instance = autocannon({
    url: target.endpoint,
    method: request.method,
    headers: request.headers,
    body: request.body,
    connections,
    amount,
    timeout: 10,
    sampleInt: 100,
    ...(expectBody === undefined ? {} : { expectBody }),
  })
  instance.on('response', (_client, _status, _bytes, responseTimeMs) => {
    times.push(responseTimeMs)
    lastResponse = performance.now()
  })
  const result = await instance
  const seconds = (lastResponse - started) / 1000
  const cpu = cpuMs(target.pid) - cpuBefore
  const own = process.cpuUsage(ownBefore)
  const others = machineBusyMs() - busyBefore - cpu - (own.user + own.system) / 1000
  const wallMs = performance.now() - started
  const failures = result.non2xx + result.errors + result.timeouts + result.mismatches
  if (failures > 0 || result.requests.total < amount) {
    throw new Error(
      `${target.worker}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts, ` +
        `${result.mismatches} wrong bodies, ` +
        `${result.requests.total}/${amount} requests`,
    )
  }
  return {
    requests: result.requests.total,
    rps: result.requests.total / seconds,
    p50Ms: percentile(times, 50),
    p99Ms: percentile(times, 99),
    cpuUsPerRequest: (cpu * 1000) / result.requests.total,
    othersShare: Math.max(0, others) / (wallMs * availableParallelism()),
    non2xx: result.non2xx,
    errors: result.errors,
    mismatches: result.mismatches,
  }
}
