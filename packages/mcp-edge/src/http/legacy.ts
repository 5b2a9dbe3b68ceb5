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
 * while younger than 400 ms (server/legacy/session-ledger.ts). With an event hub too, a GET with
 * the session id opens the session's stream (server/legacy/session-stream.ts). Without a ledger
 * DELETE and GET are 405 and nothing is kept.
 *
 * Cancellation: closing the call's stream cancels it anywhere. `notifications/cancelled` cancels a
 * call only when it lands in the isolate running that call and carries the same session id: a
 * request id alone is unique only per client, and without a session nothing says which client.
 */
import {
  CLIENT_NOTIFICATION,
  HEADER,
  LEGACY_METHOD,
  LEGACY_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '../protocol/constants.ts'
import type { LegacyVersion, LogLevel } from '../protocol/constants.ts'
import { McpError, unsupportedVersion } from '../protocol/errors.ts'
import { classifyMessage, errorResponse, isObject, readableId } from '../protocol/jsonrpc.ts'
import type { JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc.ts'
import { isLegacyVersion, negotiateLegacyVersion } from '../protocol/legacy.ts'
import { isToken } from '../protocol/meta.ts'
import type { ClientCapabilities, Implementation, RequestMeta } from '../protocol/types.ts'
import { LazyAbort } from '../server/cancellation.ts'
import type { HandleOptions } from '../server/dispatch.ts'
import { memoryInputRelay, parseOutgoingId, toClientAnswer } from '../server/input/input-relay.ts'
import type { InputRelay } from '../server/input/input-relay.ts'
import { createLegacyAsk, DEFAULT_INPUT_TIMEOUT_MS } from '../server/legacy/ask.ts'
import { LegacySessions } from '../server/legacy/session.ts'
import type { LegacySession } from '../server/legacy/session.ts'
import { reachable, SessionFactsCache, sessionKey } from '../server/legacy/session-ledger.ts'
import type { SessionFacts } from '../server/legacy/session-ledger.ts'
import { Outbox } from '../server/outbox.ts'
import type { RequestStateCodec } from '../server/request-state.ts'
import type { Handled, McpServer } from '../server/server.ts'
import { handleOptions } from './lane.ts'
import type { Lane, Run } from './lane.ts'
import { failure, jsonResponse, newRun, rejection, respond, respondBatch } from './respond.ts'
import { sseResponse } from './stream.ts'
import {
  CALL_STREAM,
  callStreamPrelude,
  openSessionStream,
  streamPrelude,
  subscriptionsFull,
} from '../server/legacy/session-stream.ts'
import { encodeBase64Url } from '../protocol/base64.ts'
import { subjectOf } from '../server/principal.ts'
import { traceAnswer } from '../server/telemetry/input.ts'
import { libraryLog } from '../server/telemetry/log.ts'

export interface LegacyOptions {
  /** How long a sealed session id opens (default 24 hours); then the client initializes again. */
  sessionTtlMs?: number
  /** How long a call waits for the client's answer to a server-to-client request (default 5 minutes). */
  inputTimeoutMs?: number
  /** The level 2025-era calls log at (default `info`), until a session's `logging/setLevel` (kept with a session ledger). */
  logLevel?: LogLevel
  /** Messages in one 2025-03-26 batch (default 32); a larger batch is -32600. */
  maxBatchItems?: number
}

export const DEFAULT_MAX_BATCH_ITEMS = 32

/** The revision a request without a version header and session speaks (2025-06-18 transport). */
const HEADERLESS_VERSION: LegacyVersion = '2025-03-26'
/** Every revision this endpoint speaks, for the -32022 of an unknown version header. */
const SERVED = [...SUPPORTED_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS]

/** Who sent a message, in which revision, with what capabilities. */
interface Client {
  version: LegacyVersion
  capabilities: ClientCapabilities
  info: Implementation | undefined
  session: LegacySession | undefined
  /** What the session ledger knows of the session (with a ledger). */
  facts?: SessionFacts | undefined
}

function params(message: { params?: unknown }): Record<string, unknown> {
  return isObject(message.params) ? message.params : {}
}

export function createLegacyLane<Env>(server: McpServer<Env>, options: LegacyOptions = {}) {
  const sessions = new WeakMap<RequestStateCodec, LegacySessions>()
  // Calls that notifications/cancelled may reach, by session nonce and request id. Workers forbid
  // one request from touching another's I/O (an AbortController among them), so the notification
  // only resolves a promise; the call itself aborts, in its own request.
  const inFlight = new Map<string, () => void>()
  // Without a relay service, answers are matched within this isolate (one isolate, or tests).
  const localRelay = memoryInputRelay()
  const timeoutMs = options.inputTimeoutMs ?? DEFAULT_INPUT_TIMEOUT_MS
  const logLevel = options.logLevel ?? 'info'
  const maxBatch = options.maxBatchItems ?? DEFAULT_MAX_BATCH_ITEMS
  const recent = new SessionFactsCache()
  // This isolate's open GET stream of each session: a newer one ends the older (no message goes
  // to two streams), and so does the session's end. As for notifications/cancelled, another
  // request only resolves a promise; the stream ends in its own request.
  const streams = new Map<string, () => void>()

  /** What a write through this isolate answered, cached from when it began; 404 if the session ended meanwhile. */
  async function learn(session: LegacySession, write: Promise<SessionFacts>): Promise<SessionFacts> {
    const startedAt = Date.now()
    const facts = await reachable(write)
    recent.put(session.nonce, facts, startedAt)
    // Ended while this request ran (a DELETE elsewhere): what it wrote is kept, but for nobody.
    if (facts.revoked) throw new McpError('sessionNotFound')
    return facts
  }

  const sessionsFor = (codec: RequestStateCodec | undefined): LegacySessions | undefined => {
    if (!codec) return undefined
    let found = sessions.get(codec)
    if (!found) {
      found = new LegacySessions(codec, options.sessionTtlMs === undefined ? {} : { ttlMs: options.sessionTtlMs })
      sessions.set(codec, found)
    }
    return found
  }
  const relayFor = (lane: Lane<Env>): InputRelay => lane.services.inputRelay ?? localRelay
  const principalOf = (lane: Lane<Env>) => subjectOf(lane.principal)
  // Two servers sharing keys cannot swap sessions (the same identity sealed states carry).
  const serverOf = (lane: Lane<Env>) => `${server.info.name} ${lane.endpoint}`

  /** The client behind a non-initialize message: its session, or only its version header. */
  async function client(lane: Lane<Env>): Promise<Client> {
    const headers = lane.request.headers
    const header = headers.get(HEADER.protocolVersion)
    if (header !== null && !isLegacyVersion(header)) throw unsupportedVersion(header, SERVED)
    const token = headers.get(HEADER.sessionId)
    if (token === null) return { version: header ?? HEADERLESS_VERSION, capabilities: {}, info: undefined, session: undefined }
    const opened = sessionsFor(lane.services.requestState)?.open(token, serverOf(lane), principalOf(lane))
    const session = opened instanceof Promise ? await opened : opened
    if (!session) throw new McpError('sessionNotFound')
    if (header !== null && header !== session.protocolVersion) {
      throw new McpError(
        'invalidRequest',
        `Invalid Request: MCP-Protocol-Version ${header} is not the session's ${session.protocolVersion}`,
      )
    }
    const who: Client = {
      version: session.protocolVersion,
      capabilities: session.clientCapabilities,
      info: session.clientInfo,
      session,
    }
    const ledger = lane.services.sessions
    if (ledger) {
      const read = recent.get(ledger, sessionKey(session))
      who.facts = read instanceof Promise ? await reachable(read) : read
      if (who.facts.revoked) throw new McpError('sessionNotFound')
    }
    return who
  }

  /** The run's options, with `ctx.ask` sending real requests to this client. */
  function legacyOptions(lane: Lane<Env>, run: Run, who: Client): HandleOptions<Env> {
    const askClient = createLegacyAsk({
      relay: relayFor(lane),
      outbox: run.outbox,
      version: who.version,
      principal: principalOf(lane),
      timeoutMs,
      cancel: run.cancel,
    })
    const ledger = lane.services.sessions
    const session = who.session
    const legacySession =
      ledger && session
        ? {
            async setLogLevel(level: LogLevel) {
              if (who.facts?.logLevel === level) return
              await learn(session, ledger.setLogLevel(sessionKey(session), level))
            },
            async subscribe(uri: string, subscribed: boolean) {
              const facts = await learn(session, ledger.subscribe(sessionKey(session), uri, subscribed))
              if (subscribed && !facts.subscriptions?.includes(uri)) throw subscriptionsFull()
            },
          }
        : undefined
    return { ...handleOptions(lane, run, 'legacy', session?.nonce), askClient, legacySession }
  }

  function handle(lane: Lane<Env>, message: JsonRpcRequest, who: Client, run: Run): Promise<Handled> {
    const given = params(message)._meta
    const raw = isObject(given) ? given : {}
    const meta: RequestMeta = {
      protocolVersion: who.version,
      clientCapabilities: who.capabilities,
      raw,
      logLevel: who.facts?.logLevel ?? logLevel,
    }
    if (who.info) meta.clientInfo = who.info
    if (isToken(raw.progressToken)) meta.progressToken = raw.progressToken
    const key = who.session && `${who.session.nonce}:${JSON.stringify(message.id)}`
    if (key) {
      new Promise<void>((resolve) => inFlight.set(key, resolve)).then(() => run.cancel.abort())
    }
    const done = server.handle(message, meta, legacyOptions(lane, run, who))
    return key ? done.finally(() => inFlight.delete(key)) : done
  }

  async function initialize(lane: Lane<Env>, message: JsonRpcRequest): Promise<Response> {
    const requested = params(message)
    const version = negotiateLegacyVersion(requested.protocolVersion)
    const capabilities = (isObject(requested.capabilities) ? requested.capabilities : {}) as ClientCapabilities
    const info = isObject(requested.clientInfo) ? (requested.clientInfo as unknown as Implementation) : undefined
    const meta: RequestMeta = { protocolVersion: version, clientCapabilities: capabilities, raw: {} }
    // initialize sends nothing before its result: a run with an unused outbox and signal.
    const handled = await server.handle(
      message,
      meta,
      handleOptions(lane, { outbox: new Outbox(), cancel: new LazyAbort() }, 'legacy'),
    )
    const minter = sessionsFor(lane.services.requestState)
    if (!('result' in handled.message) || !minter) {
      return jsonResponse(handled.message, handled.status, lane.challenge(handled.message, handled.status))
    }
    const id = await minter.mint({
      server: serverOf(lane),
      protocolVersion: version,
      clientCapabilities: capabilities,
      clientInfo: info,
      principal: principalOf(lane),
    })
    return jsonResponse(handled.message, handled.status, { [HEADER.sessionId]: id })
  }

  /** A client's JSON-RPC response: an answer to one of our requests (202), or nothing we asked (400). */
  async function answer(lane: Lane<Env>, response: JsonRpcResponse, who: Client): Promise<void> {
    const target = parseOutgoingId(response.id)
    const given = toClientAnswer(response as never)
    const taken = target !== undefined && (await relayFor(lane).answer(target.exchangeId, target.index, principalOf(lane), given))
    if (!taken) throw new McpError('unknownAnswer')
    const asked = taken === true ? undefined : taken.asked
    const telemetry = asked && lane.observer ? server.observers.telemetry(lane.env) : undefined
    const answered = { id: String(response.id), answer: given, sessionId: who.session?.nonce }
    const sending = traceAnswer(telemetry, asked, answered, server.observers.log)
    if (sending) lane.waitUntil?.(sending)
  }

  function notify(who: Client, method: string, notified: Record<string, unknown>): void {
    if (method !== CLIENT_NOTIFICATION.cancelled || !who.session) return
    inFlight.get(`${who.session.nonce}:${JSON.stringify(notified.requestId)}`)?.()
  }

  return {
    /** Whether DELETE ends sessions here: a session ledger and session ids are configured. */
    ends: (services: Lane<Env>['services']) => services.sessions !== undefined && services.requestState !== undefined,

    /** DELETE with a session id: end the session (204); an id that does not open is 404 and ends nothing. */
    async terminate(lane: Lane<Env>): Promise<Response> {
      const who = await client(lane)
      const ledger = lane.services.sessions
      if (!who.session || !ledger) throw new McpError('sessionNotFound')
      await reachable(ledger.revoke(sessionKey(who.session)))
      recent.put(who.session.nonce, { revoked: true })
      // Its calls and its GET stream in this isolate end now (elsewhere: calls with their own
      // streams, the GET stream at its next event or its planned close).
      const prefix = `${who.session.nonce}:`
      for (const [key, cancel] of inFlight) if (key.startsWith(prefix)) cancel()
      streams.get(who.session.nonce)?.()
      return new Response(null, { status: 204 })
    },

    /** Whether a session's GET opens its stream here: a session ledger, session ids and an event hub. */
    streams: (services: Lane<Env>['services']) =>
      services.sessions !== undefined && services.requestState !== undefined && typeof server.events === 'object',

    /** GET with a session id: the session's stream (session-stream.ts), primed and with its retry, as SSE. */
    async stream(lane: Lane<Env>): Promise<Response> {
      const who = await client(lane)
      const { session } = who
      const ledger = lane.services.sessions
      const hub = typeof server.events === 'object' ? server.events : undefined
      if (!session || !ledger || !hub) throw new McpError('sessionNotFound')
      // A call's stream is not resumed (its call ended with it): the 2025 transport's 405.
      if (lane.request.headers.get(HEADER.lastEventId)?.startsWith(CALL_STREAM)) {
        const detail =
          'Method not allowed: a call’s stream is not resumed; GET without its Last-Event-ID opens the session’s stream'
        return rejection(new McpError('methodNotAllowed', detail), undefined, { allow: 'POST, GET, DELETE' })
      }
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
        // The ledger names this stream the session's newest (any older one, anywhere, stops).
        await learn(session, ledger.openStream(sessionKey(session), id))
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
          logLevel,
          facts: () => recent.get(ledger, sessionKey(session)),
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
    },

    /** Serve one 2025-era message. */
    async serve(lane: Lane<Env>, body: unknown): Promise<Response> {
      const incoming = classifyMessage(body, { responses: true })
      if (incoming.kind === 'request' && incoming.message.method === LEGACY_METHOD.initialize) {
        return initialize(lane, incoming.message)
      }
      const who = await client(lane)
      if (incoming.kind === 'notification') {
        notify(who, incoming.message.method, params(incoming.message))
        return new Response(null, { status: 202 })
      }
      if (incoming.kind === 'response') {
        await answer(lane, incoming.message, who)
        return new Response(null, { status: 202 })
      }
      const message = incoming.message
      const prelude = who.version === '2025-11-25' ? callStreamPrelude : undefined
      return respond(lane, message.id, (run) => handle(lane, message, who, run), prelude)
    },

    /** A JSON-RPC batch: 2025-03-26 only (later revisions removed batching). */
    async serveBatch(lane: Lane<Env>, items: unknown[]): Promise<Response> {
      const who = await client(lane)
      if (who.version !== '2025-03-26') {
        throw new McpError('invalidRequest', `Invalid Request: batches are not supported in ${who.version}`)
      }
      if (items.length === 0) throw new McpError('invalidRequest', 'Invalid Request: an empty batch')
      // One HTTP request, one rate-limit charge: a batch may not stand in for thousands of calls.
      if (items.length > maxBatch) {
        throw new McpError('invalidRequest', `Invalid Request: a batch holds at most ${maxBatch} messages`)
      }
      const handles = items.map((item) => async (run: Run): Promise<Handled | undefined> => {
        try {
          const incoming = classifyMessage(item, { responses: true })
          if (incoming.kind === 'notification') return void notify(who, incoming.message.method, params(incoming.message))
          if (incoming.kind === 'response') return void (await answer(lane, incoming.message, who).catch(() => {}))
          if (incoming.message.method === LEGACY_METHOD.initialize) {
            throw new McpError('invalidRequest', 'Invalid Request: initialize must not be part of a batch')
          }
          // One stream for the batch, but each request its own signal: cancelling one (by
          // notifications/cancelled) leaves the others running; closing the stream ends them all.
          return await handle(lane, incoming.message, who, { outbox: run.outbox, cancel: new LazyAbort(run.cancel.signal) })
        } catch (error) {
          // As for a single request: anything unexpected is -32603, logged, not leaked.
          return { message: errorResponse(readableId(item), failure(error, 'batch item').toJSON()), status: 200 }
        }
      })
      return respondBatch(lane, handles)
    },
  }
}
