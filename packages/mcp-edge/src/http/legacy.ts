/**
 * The 2025-era lane of the endpoint (revisions 2025-11-25, 2025-06-18, 2025-03-26): requests
 * without `_meta["io.modelcontextprotocol/protocolVersion"]`, from clients that open with
 * `initialize`. Stateless like the modern lane: `initialize` seals what it negotiated into the
 * `Mcp-Session-Id` (no server storage), every later request opens it again (404 when it cannot,
 * 2025 streamable-http), and the server core serves the request in the negotiated revision's
 * shapes. A handler's `ctx.ask` becomes real server-to-client requests on the call's stream; the
 * client's answers arrive as POSTed JSON-RPC responses (202) and reach the waiting call through
 * the input relay, in whichever isolate it runs.
 *
 * Sessions end when the client asks (DELETE, 204; from then on the id gets 404) and keep the level
 * of `logging/setLevel` and their subscriptions, when a session ledger is configured
 * (`services.sessions`): each request of a session reads its facts, from this isolate's cache
 * while younger than 400 ms (server/legacy/session-ledger.ts). With an event hub and
 * `services.sessionStreams` too, a GET with the session id opens the session's stream
 * (server/legacy/session-stream.ts; `cloudflareServices` sets it with `sessions`). Without a ledger
 * DELETE and GET are 405 and nothing is kept.
 *
 * Cancellation: closing the call's stream cancels it anywhere. `notifications/cancelled` cancels a
 * call only when it lands in the isolate running that call and carries the same session id: a
 * request id alone is unique only per client, and without a session nothing says which client.
 *
 * This file routes; the parts live beside it: who sent a message (legacy-client.ts), the POSTed
 * messages (legacy-calls.ts) and the session's GET stream (legacy-stream.ts).
 */
import { LEGACY_METHOD } from '../protocol/constants.ts'
import { McpError } from '../protocol/errors.ts'
import { classifyMessage } from '../protocol/jsonrpc.ts'
import { reachable, sessionKey } from '../server/legacy/session-ledger.ts'
import type { McpServer } from '../server/server.ts'
import type { Lane } from './lane.ts'
import { answer, batchItem, handleCall, initialize, notify, params } from './legacy-calls.ts'
import { announceEnd, clientOf, createLegacyState } from './legacy-client.ts'
import type { LegacyOptions, LegacyState } from './legacy-client.ts'
import { openLegacyStream } from './legacy-stream.ts'
import { respond, respondBatch } from './respond.ts'
import { callStreamPrelude } from '../server/legacy/session-stream.ts'

export { DEFAULT_MAX_BATCH_ITEMS } from './legacy-client.ts'
export type { LegacyOptions } from './legacy-client.ts'

/**
 * DELETE with a session id: end the session (204); an id that does not open (or whose session
 * already ended) is 404 and ends nothing. The end is announced to the session's GET stream on any
 * isolate; once the ledger has it the answer is 204 whatever the hub says (`announceEnd` retries
 * in the background), since a client told to retry could never end it: its retry is 404.
 */
async function terminate<Env>(state: LegacyState<Env>, lane: Lane<Env>): Promise<Response> {
  const who = await clientOf(state, lane)
  const ledger = lane.services.sessions
  if (!who.session || !ledger) throw new McpError('sessionNotFound')
  const { nonce } = who.session
  await reachable(ledger.revoke(sessionKey(who.session)))
  state.recent.put(nonce, { revoked: true })
  // Its calls and its GET stream in this isolate end now (elsewhere: calls end with their own
  // streams).
  const prefix = `${nonce}:`
  for (const [key, cancel] of state.inFlight) if (key.startsWith(prefix)) cancel()
  state.streams.get(nonce)?.()
  // Its GET stream on any other isolate ends when it hears this (server/legacy/stream-facts.ts).
  await announceEnd(state, lane, nonce)
  return new Response(null, { status: 204 })
}

/** Serve one 2025-era message: initialize, a notification or a response (202), or a request. */
async function serve<Env>(state: LegacyState<Env>, lane: Lane<Env>, body: unknown): Promise<Response> {
  const incoming = classifyMessage(body, { responses: true })
  if (incoming.kind === 'request' && incoming.message.method === LEGACY_METHOD.initialize) {
    return initialize(state, lane, incoming.message)
  }
  const who = await clientOf(state, lane)
  if (incoming.kind === 'notification') {
    notify(state, lane, who, incoming.message.method, params(incoming.message))
    return new Response(null, { status: 202 })
  }
  if (incoming.kind === 'response') {
    await answer(state, lane, incoming.message, who)
    return new Response(null, { status: 202 })
  }
  const message = incoming.message
  const prelude = who.version === '2025-11-25' ? callStreamPrelude : undefined
  return respond(lane, message.id, (run) => handleCall(state, lane, message, who, run), prelude)
}

/** A JSON-RPC batch: 2025-03-26 only (later revisions removed batching). */
async function serveBatch<Env>(state: LegacyState<Env>, lane: Lane<Env>, items: unknown[]): Promise<Response> {
  const who = await clientOf(state, lane)
  if (who.version !== '2025-03-26') {
    throw new McpError('invalidRequest', `Invalid Request: batches are not supported in ${who.version}`)
  }
  if (items.length === 0) throw new McpError('invalidRequest', 'Invalid Request: an empty batch')
  // One HTTP request, one rate-limit charge: a batch may not stand in for thousands of calls.
  if (items.length > state.maxBatch) {
    throw new McpError('invalidRequest', `Invalid Request: a batch holds at most ${state.maxBatch} messages`)
  }
  return respondBatch(
    lane,
    items.map((item) => (run) => batchItem(state, lane, who, item, run)),
  )
}

/** The 2025-era lane of an endpoint (handler.ts). */
export type LegacyLane<Env> = ReturnType<typeof createLegacyLane<Env>>

export function createLegacyLane<Env>(server: McpServer<Env>, options: LegacyOptions = {}) {
  const state = createLegacyState(server, options)
  const streamable = (services: Lane<Env>['services']) =>
    services.sessions !== undefined && services.requestState !== undefined && typeof server.events === 'object'
  return {
    /** Whether DELETE ends sessions here: a session ledger and session ids are configured. */
    ends: (services: Lane<Env>['services']) => services.sessions !== undefined && services.requestState !== undefined,
    /** DELETE with a session id: end the session (204); an id that does not open is 404 and ends nothing. */
    terminate(lane: Lane<Env>): Promise<Response> {
      return terminate(state, lane)
    },
    /**
     * Whether a session's GET opens its stream here: a session ledger, session ids, an event hub
     * and `sessionStreams`.
     */
    streams: (services: Lane<Env>['services']): boolean => streamable(services) && services.sessionStreams !== undefined,
    /** Services that could serve sessions' GET streams but lack `sessionStreams` (warned of once, when built). */
    missesStreams: (services: Lane<Env>['services']): boolean => streamable(services) && services.sessionStreams === undefined,
    /** GET with a session id: the session's stream (legacy-stream.ts), primed and with its retry, as SSE. */
    stream(lane: Lane<Env>): Promise<Response> {
      return openLegacyStream(state, lane)
    },
    /** Serve one 2025-era message. */
    serve(lane: Lane<Env>, body: unknown): Promise<Response> {
      return serve(state, lane, body)
    },
    /** A JSON-RPC batch: 2025-03-26 only (later revisions removed batching). */
    serveBatch(lane: Lane<Env>, items: unknown[]): Promise<Response> {
      return serveBatch(state, lane, items)
    },
  }
}
