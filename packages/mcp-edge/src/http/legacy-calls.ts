/**
 * The 2025-era messages a client POSTs (http/legacy.ts): `initialize`, which seals what it
 * negotiated into a new session id; a request, served by the server core in the negotiated
 * revision's shapes with `ctx.ask` sending real server-to-client requests on the call's stream;
 * the client's JSON-RPC response to one of those (through the input relay, in whichever isolate
 * the call waits); `notifications/cancelled`; and one item of a 2025-03-26 batch.
 */
import { CLIENT_NOTIFICATION, HEADER, LEGACY_METHOD } from '../protocol/constants.ts'
import type { LogLevel } from '../protocol/constants.ts'
import { McpError } from '../protocol/errors.ts'
import { classifyMessage, errorResponse, isObject, readableId } from '../protocol/jsonrpc.ts'
import type { JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc.ts'
import { negotiateLegacyVersion } from '../protocol/legacy.ts'
import { isToken } from '../protocol/meta.ts'
import type { ClientCapabilities, Implementation, RequestMeta } from '../protocol/types.ts'
import { LazyAbort } from '../server/cancellation.ts'
import type { HandleOptions } from '../server/dispatch.ts'
import { heardNotification } from '../server/kept-requests.ts'
import { parseOutgoingId, toClientAnswer } from '../server/input/input-relay.ts'
import { createLegacyAsk } from '../server/legacy/ask.ts'
import { sessionKey } from '../server/legacy/session-ledger.ts'
import type { SessionFacts } from '../server/legacy/session-ledger.ts'
import { subscriptionsFull } from '../server/legacy/session-stream.ts'
import { Outbox } from '../server/outbox.ts'
import type { Handled } from '../server/server.ts'
import { traceAnswer } from '../server/telemetry/input.ts'
import { handleOptions } from './lane.ts'
import type { Lane, Run } from './lane.ts'
import { announce, learn, principalOf, relayFor, serverOf, sessionsFor } from './legacy-client.ts'
import type { Client, LegacyState } from './legacy-client.ts'
import { failure, jsonResponse } from './respond.ts'

export function params(message: { params?: unknown }): Record<string, unknown> {
  return isObject(message.params) ? message.params : {}
}

/** The run's options, with `ctx.ask` sending real requests to this client and its session's level and subscriptions kept. */
function legacyOptions<Env>(state: LegacyState<Env>, lane: Lane<Env>, run: Run, who: Client): HandleOptions<Env> {
  const askClient = createLegacyAsk({
    relay: relayFor(state, lane),
    outbox: run.outbox,
    version: who.version,
    principal: principalOf(lane),
    timeoutMs: state.timeoutMs,
    cancel: run.cancel,
  })
  const ledger = lane.services.sessions
  const session = who.session
  const legacySession =
    ledger && session
      ? {
          async setLogLevel(level: LogLevel) {
            // The level this isolate knows needs no write, but is announced again: this may be the
            // retry of a call whose write was kept but whose announcement failed. So repeating a level
            // always publishes (one hub request, and one ledger read per open stream of the session):
            // accepted, since only the session's owner can send it, and each is one request of its own.
            if (who.facts?.logLevel === level) return announce(state, lane, session.nonce)
            await learn(state, lane, session, ledger.setLogLevel(sessionKey(session), level))
          },
          async subscribe(uri: string, subscribed: boolean) {
            const full = (facts: SessionFacts) =>
              subscribed && !facts.subscriptions?.includes(uri) ? subscriptionsFull() : undefined
            await learn(state, lane, session, ledger.subscribe(sessionKey(session), uri, subscribed), full)
          },
        }
      : undefined
  return { ...handleOptions(lane, run, 'legacy', session?.nonce), askClient, legacySession }
}

/** Serve one request of `who`; with a session, notifications/cancelled can reach it while it runs. */
export function handleCall<Env>(
  state: LegacyState<Env>,
  lane: Lane<Env>,
  message: JsonRpcRequest,
  who: Client,
  run: Run,
): Promise<Handled> {
  const given = params(message)._meta
  const raw = isObject(given) ? given : {}
  const meta: RequestMeta = {
    protocolVersion: who.version,
    clientCapabilities: who.capabilities,
    raw,
    logLevel: who.facts?.logLevel ?? state.logLevel,
  }
  if (who.info) meta.clientInfo = who.info
  if (isToken(raw.progressToken)) meta.progressToken = raw.progressToken
  const key = who.session && `${who.session.nonce}:${JSON.stringify(message.id)}`
  if (key) {
    new Promise<void>((resolve) => state.inFlight.set(key, resolve)).then(() => run.cancel.abort())
  }
  const done = state.server.handle(message, meta, legacyOptions(state, lane, run, who))
  if (!key) return done
  // Not `finally`, which adds a promise of its own for each way the call can end.
  const forget = () => state.inFlight.delete(key)
  return done.then(
    (handled) => {
      forget()
      return handled
    },
    (error: unknown) => {
      forget()
      throw error
    },
  )
}

/** `initialize`: the server core's answer, with a sealed session id when there are sessions. */
export async function initialize<Env>(state: LegacyState<Env>, lane: Lane<Env>, message: JsonRpcRequest): Promise<Response> {
  const requested = params(message)
  const version = negotiateLegacyVersion(requested.protocolVersion)
  const capabilities = (isObject(requested.capabilities) ? requested.capabilities : {}) as ClientCapabilities
  const info = isObject(requested.clientInfo) ? (requested.clientInfo as unknown as Implementation) : undefined
  const meta: RequestMeta = { protocolVersion: version, clientCapabilities: capabilities, raw: {} }
  // initialize sends nothing before its result: a run with an unused outbox and signal.
  const run = { outbox: new Outbox(), cancel: new LazyAbort() }
  const handled = await state.server.handle(message, meta, handleOptions(lane, run, 'legacy'))
  const minter = sessionsFor(state, lane.services.requestState)
  if (!('result' in handled.message) || !minter) {
    return jsonResponse(handled.message, handled.status, lane.challenge(handled.message, handled.status))
  }
  const id = await minter.mint({
    server: serverOf(state, lane),
    protocolVersion: version,
    clientCapabilities: capabilities,
    clientInfo: info,
    principal: principalOf(lane),
  })
  return jsonResponse(handled.message, handled.status, { [HEADER.sessionId]: id })
}

/** A client's JSON-RPC response: an answer to one of our requests (202), or nothing we asked (400). */
export async function answer<Env>(
  state: LegacyState<Env>,
  lane: Lane<Env>,
  response: JsonRpcResponse,
  who: Client,
): Promise<void> {
  const { server } = state
  const target = parseOutgoingId(response.id)
  const given = toClientAnswer(response as never)
  const taken =
    target !== undefined && (await relayFor(state, lane).answer(target.exchangeId, target.index, principalOf(lane), given))
  if (!taken) throw new McpError('unknownAnswer')
  const asked = taken === true ? undefined : taken.asked
  const telemetry = asked && lane.observer ? server.observers.telemetry(lane.env) : undefined
  const answered = { id: String(response.id), answer: given, sessionId: who.session?.nonce }
  const sending = traceAnswer(telemetry, asked, answered, server.observers.log)
  if (sending) lane.waitUntil?.(sending)
}

/**
 * A client notification: notifications/cancelled cancels a call of the same session in this
 * isolate; every one is heard by code that watches the server's (kept-requests.ts: an SDK server's
 * `oninitialized`).
 */
export function notify<Env>(
  state: LegacyState<Env>,
  lane: Lane<Env>,
  who: Client,
  method: string,
  notified: Record<string, unknown>,
): void {
  const client = { protocolVersion: who.version, capabilities: who.capabilities, info: who.info }
  heardNotification(state.server, method, notified, client, lane.waitUntil)
  if (method !== CLIENT_NOTIFICATION.cancelled || !who.session) return
  state.inFlight.get(`${who.session.nonce}:${JSON.stringify(notified.requestId)}`)?.()
}

/** One item of a 2025-03-26 batch, on the batch's stream; a notification or response gives nothing back. */
export async function batchItem<Env>(
  state: LegacyState<Env>,
  lane: Lane<Env>,
  who: Client,
  item: unknown,
  run: Run,
): Promise<Handled | undefined> {
  try {
    const incoming = classifyMessage(item, { responses: true })
    if (incoming.kind === 'notification') return void notify(state, lane, who, incoming.message.method, params(incoming.message))
    if (incoming.kind === 'response') return void (await answer(state, lane, incoming.message, who).catch(() => {}))
    if (incoming.message.method === LEGACY_METHOD.initialize) {
      throw new McpError('invalidRequest', 'Invalid Request: initialize must not be part of a batch')
    }
    // One stream for the batch, but each request its own signal: cancelling one (by
    // notifications/cancelled) leaves the others running; closing the stream ends them all.
    return await handleCall(state, lane, incoming.message, who, { outbox: run.outbox, cancel: new LazyAbort(run.cancel.signal) })
  } catch (error) {
    // As for a single request: anything unexpected is -32603, logged, not leaked.
    return { message: errorResponse(readableId(item), failure(error, 'batch item').toJSON()), status: 200 }
  }
}
