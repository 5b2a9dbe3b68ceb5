/**
 * What every answer to a fuzz case must be: never a 5xx; 202 only for a notification; a JSON body
 * that is one JSON-RPC response with a result or a spec error code (never -32603, which would
 * mean an unexpected exception); an SSE stream whose messages are JSON-RPC and which ends with the
 * response (a listen stream is read to its acknowledgement and closed). Returns whether the
 * request was refused, so the caller can check that it stored nothing.
 */
import { sseData } from '../support/mcp.ts'
import type { FuzzCase } from './cases.ts'

/** Spec error codes (JSON-RPC, -32020..-32022). -32603 is left out on purpose. */
const SPEC_CODES = new Set([-32700, -32600, -32601, -32602, -32020, -32021, -32022])
const STATUSES = new Set([200, 202, 204, 400, 401, 403, 404, 405, 406, 413, 415, 429])

export interface Verdict {
  refused: boolean
  status: number
  code?: number
}

function fail(fuzzCase: FuzzCase, status: number, why: string): never {
  throw new Error(`${why} (HTTP ${status}) for ${JSON.stringify(fuzzCase).slice(0, 600)}`)
}

function checkMessage(fuzzCase: FuzzCase, status: number, message: unknown): Verdict {
  if (typeof message !== 'object' || message === null) fail(fuzzCase, status, 'body is not a JSON object')
  const { jsonrpc, result, error } = message as { jsonrpc?: unknown; result?: unknown; error?: { code?: unknown } }
  if (jsonrpc !== '2.0') fail(fuzzCase, status, 'not JSON-RPC 2.0')
  if ((result === undefined) === (error === undefined)) fail(fuzzCase, status, 'neither or both of result and error')
  if (error === undefined) return { refused: false, status }
  const code = error.code
  if (typeof code !== 'number' || !SPEC_CODES.has(code)) fail(fuzzCase, status, `error code ${String(code)} is not a spec error`)
  return { refused: true, status, code }
}

/**
 * @example
 * const verdict = await judge(fuzzCase, await fetch(toRequest(url, fuzzCase)))
 */
export async function judge(fuzzCase: FuzzCase, response: Response): Promise<Verdict> {
  const { status } = response
  if (!STATUSES.has(status)) fail(fuzzCase, status, 'unexpected status')
  if (status === 202) {
    if (!fuzzCase.notification || (await response.text()) !== '') fail(fuzzCase, status, '202 for a request, or with a body')
    return { refused: false, status }
  }
  if (status === 204) {
    if (fuzzCase.method !== 'OPTIONS') fail(fuzzCase, status, '204 outside a preflight')
    return { refused: false, status }
  }
  const type = response.headers.get('content-type') ?? ''
  if (type.startsWith('text/event-stream') && response.body) {
    const events = sseData(response.body)
    for await (const data of events) {
      const message = JSON.parse(data) as { id?: unknown; method?: string }
      if (message.method === 'notifications/subscriptions/acknowledged') {
        await events.return(undefined)
        return { refused: false, status }
      }
      if (message.method === undefined) return checkMessage(fuzzCase, status, message)
    }
    fail(fuzzCase, status, 'SSE stream ended without a response')
  }
  const text = await response.text()
  if (!type.startsWith('application/json')) fail(fuzzCase, status, `content type ${type}`)
  let message: unknown
  try {
    message = JSON.parse(text)
  } catch {
    fail(fuzzCase, status, 'body is not JSON')
  }
  // A 2025-03-26 batch is answered with an array: refused only when no entry got a result.
  const verdicts =
    Array.isArray(message) && message.length > 0
      ? message.map((entry) => checkMessage(fuzzCase, status, entry))
      : [checkMessage(fuzzCase, status, message)]
  const verdict = verdicts.find((entry) => !entry.refused) ?? (verdicts[0] as Verdict)
  if (status !== 200 && !verdict.refused) fail(fuzzCase, status, 'a result on an error status')
  return { ...verdict, refused: verdict.refused || status !== 200 }
}

/** Counts of a run, printed at its end: how far the cases got. */
export class Tally {
  cases = 0
  refused = 0
  results = 0
  readonly byStatus: Record<number, number> = {}
  readonly byCode: Record<number, number> = {}

  add(verdict: Verdict): void {
    this.cases++
    if (verdict.refused) this.refused++
    else this.results++
    this.byStatus[verdict.status] = (this.byStatus[verdict.status] ?? 0) + 1
    if (verdict.code !== undefined) this.byCode[verdict.code] = (this.byCode[verdict.code] ?? 0) + 1
  }
}
