/**
 * HTTP to the provider, for every upstream call but the authorization redirect: a timeout on
 * each request, no redirects followed (a token request must not be replayed elsewhere with its
 * credentials), and failures turned into `UpstreamError`s whose messages name the endpoint and the
 * status, never a token or a response body.
 */
import { UpstreamError } from './upstream.ts'

/** How long one upstream request may take before the sign-in fails as `unavailable`. */
export const UPSTREAM_TIMEOUT_MS = 10_000

/** An OAuth error code (RFC 6749 §5.2 `error`) safe to put in a message; anything else is dropped. */
export function safeErrorCode(value: unknown): string | undefined {
  return typeof value === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(value) ? value : undefined
}

/**
 * `fetch` with the timeout and without redirects. A network failure or timeout, a 5xx or a 429 is
 * `unavailable` (try again later); any other status is handed back for the caller to judge.
 */
export async function upstreamFetch(url: string, init: RequestInit, what: string): Promise<Response> {
  let response: Response
  try {
    response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS) })
  } catch {
    throw new UpstreamError('unavailable', `the provider's ${what} could not be reached`)
  }
  if (response.status >= 500 || response.status === 429) {
    await response.body?.cancel()
    throw new UpstreamError('unavailable', `the provider's ${what} answered ${response.status}`)
  }
  return response
}

/** The response's JSON object, or an `UpstreamError` with `reason` when it is not one. */
export async function readJsonObject(response: Response, reason: string, what: string): Promise<Record<string, unknown>> {
  let body: unknown
  try {
    body = await response.json()
  } catch {
    throw new UpstreamError(reason, `the provider's ${what} answered ${response.status} without a JSON object`)
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new UpstreamError(reason, `the provider's ${what} answered ${response.status} without a JSON object`)
  }
  return body as Record<string, unknown>
}
