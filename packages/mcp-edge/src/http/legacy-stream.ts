/**
 * GET with a 2025-era session id (http/legacy.ts): the session's stream, as SSE. The session's
 * older stream in this isolate ends first (no message goes to two streams); the ledger names the
 * new one the session's newest, so an older one anywhere stops; then the services' `sessionStreams`
 * (server/legacy/session-stream.ts) primes it and forwards what the event hub publishes for the session. A call's stream is never
 * resumed here (405). Counted against the per-principal cap on open streams, shared with listen
 * streams.
 */
import { HEADER } from '../protocol/constants.ts'
import { encodeBase64Url } from '../protocol/base64.ts'
import { McpError } from '../protocol/errors.ts'
import { sessionKey } from '../server/legacy/session-ledger.ts'
import { CALL_STREAM, streamPrelude } from '../server/legacy/session-stream.ts'
import { libraryLog } from '../server/telemetry/log.ts'
import { handleOptions } from './lane.ts'
import type { Lane } from './lane.ts'
import { clientOf, learn, principalOf } from './legacy-client.ts'
import type { LegacyState } from './legacy-client.ts'
import { newRun, rejection } from './respond.ts'
import { sseResponse } from './stream.ts'

/** A call's stream is not resumed (its call ended with it): the 2025 transport's 405. */
function callStreamNotResumed(): Response {
  const detail = 'Method not allowed: a call’s stream is not resumed; GET without its Last-Event-ID opens the session’s stream'
  return rejection(new McpError('methodNotAllowed', detail), undefined, { allow: 'POST, GET, DELETE' })
}

/** The session's stream (session-stream.ts), primed and with its retry, as SSE. */
export async function openLegacyStream<Env>(state: LegacyState<Env>, lane: Lane<Env>): Promise<Response> {
  const { server, streams, recent } = state
  const who = await clientOf(state, lane)
  const { session } = who
  const { sessions: ledger, sessionStreams: openSessionStream } = lane.services
  const hub = typeof server.events === 'object' ? server.events : undefined
  if (!session || !ledger || !hub || !openSessionStream) throw new McpError('sessionNotFound')
  if (lane.request.headers.get(HEADER.lastEventId)?.startsWith(CALL_STREAM)) return callStreamNotResumed()
  // The session's older stream here ends; then the per-principal cap on open streams in this
  // isolate, shared with listen streams: 429 at the cap.
  streams.get(session.nonce)?.()
  const release = server.limits.openListen(principalOf(lane))
  const ended = new AbortController()
  let endStream!: () => void
  void new Promise<void>((resolve) => {
    endStream = resolve
  }).then(() => ended.abort())
  streams.set(session.nonce, endStream)
  const run = newRun(lane)
  run.cancel.signal.addEventListener('abort', () => ended.abort(), { once: true })
  const closed = () => {
    release()
    if (streams.get(session.nonce) === endStream) streams.delete(session.nonce)
    run.outbox.close()
  }
  const id = encodeBase64Url(crypto.getRandomValues(new Uint8Array(9)))
  let opened: { done: Promise<void>; cursor: string }
  try {
    // The ledger names this stream the session's newest, and the hub announces it: any older one, anywhere, stops.
    await learn(state, lane, session, ledger.openStream(sessionKey(session), id))
    // The hub has the stream before the client hears it opened: nothing published after is missed.
    opened = await openSessionStream({
      server,
      hub,
      options: handleOptions(lane, run, 'legacy', session.nonce),
      meta: {
        protocolVersion: session.protocolVersion,
        clientCapabilities: session.clientCapabilities,
        ...(session.clientInfo ? { clientInfo: session.clientInfo } : {}),
        raw: {},
      },
      logLevel: state.logLevel,
      ledger,
      session: sessionKey(session),
      cache: recent,
      current: () => streams.get(session.nonce) === endStream,
      id,
      outbox: run.outbox,
      signal: ended.signal,
      lastEventId: lane.request.headers.get(HEADER.lastEventId),
    })
  } catch (error) {
    closed()
    throw error
  }
  const final = opened.done
    .catch((error: unknown) => {
      libraryLog.warn('session stream ended', { error: error instanceof Error ? error.message : String(error) })
    })
    .then(() => {
      closed()
      return []
    })
  return sseResponse(run.outbox, final, run.cancel, lane.respond.keepaliveMs, streamPrelude(who.version, opened.cursor))
}
