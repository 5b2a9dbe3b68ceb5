/**
 * Who sent a 2025-era message (http/legacy.ts): the lane's state shared by its parts, and the
 * client behind a request, from its sealed `Mcp-Session-Id` (404 when it does not open) or from
 * its version header alone. With a session ledger, what the ledger knows of the session comes
 * along, from this isolate's cache while fresh (server/legacy/session-ledger.ts); a session that
 * ended is 404 here too. And how a change of a session's facts is announced on the event hub
 * (`announce`, `announceEnd`), so that its open GET stream, on any isolate, reads them again.
 * Nothing here answers a request: legacy-calls.ts and legacy-stream.ts do.
 */
import { HEADER, LEGACY_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/constants.ts'
import type { LegacyVersion, LogLevel } from '../protocol/constants.ts'
import { McpError, unsupportedVersion } from '../protocol/errors.ts'
import { isLegacyVersion } from '../protocol/legacy.ts'
import type { ClientCapabilities, Implementation } from '../protocol/types.ts'
import { memoryInputRelay } from '../server/input/input-relay.ts'
import type { InputRelay } from '../server/input/input-relay.ts'
import { DEFAULT_INPUT_TIMEOUT_MS } from '../server/legacy/ask.ts'
import { LegacySessions } from '../server/legacy/session.ts'
import type { LegacySession } from '../server/legacy/session.ts'
import { reachable, SessionFactsCache, sessionKey } from '../server/legacy/session-ledger.ts'
import type { SessionFacts } from '../server/legacy/session-ledger.ts'
import { sessionChanged } from '../server/events/events.ts'
import { subjectOf } from '../server/principal.ts'
import { libraryLog } from '../server/telemetry/log.ts'
import type { RequestStateCodec } from '../server/request-state.ts'
import type { McpServer } from '../server/server.ts'
import type { Lane } from './lane.ts'

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
export interface Client {
  version: LegacyVersion
  capabilities: ClientCapabilities
  info: Implementation | undefined
  session: LegacySession | undefined
  /** What the session ledger knows of the session (with a ledger). */
  facts?: SessionFacts | undefined
}

/** What the lane's parts share, for the life of the isolate. */
export interface LegacyState<Env> {
  server: McpServer<Env>
  options: LegacyOptions
  timeoutMs: number
  logLevel: LogLevel
  maxBatch: number
  /** Session id sealers, one per request-state codec. */
  sessions: WeakMap<RequestStateCodec, LegacySessions>
  /**
   * Calls that notifications/cancelled may reach, by session nonce and request id. Workers forbid
   * one request from touching another's I/O (an AbortController among them), so the notification
   * only resolves a promise; the call itself aborts, in its own request.
   */
  inFlight: Map<string, () => void>
  /** Without a relay service, answers are matched within this isolate (one isolate, or tests). */
  localRelay: InputRelay
  recent: SessionFactsCache
  /**
   * This isolate's open GET stream of each session: a newer one ends the older (no message goes
   * to two streams), and so does the session's end. As for notifications/cancelled, another
   * request only resolves a promise; the stream ends in its own request.
   */
  streams: Map<string, () => void>
}

export function createLegacyState<Env>(server: McpServer<Env>, options: LegacyOptions): LegacyState<Env> {
  return {
    server,
    options,
    timeoutMs: options.inputTimeoutMs ?? DEFAULT_INPUT_TIMEOUT_MS,
    logLevel: options.logLevel ?? 'info',
    maxBatch: options.maxBatchItems ?? DEFAULT_MAX_BATCH_ITEMS,
    sessions: new WeakMap(),
    inFlight: new Map(),
    localRelay: memoryInputRelay(),
    recent: new SessionFactsCache(),
    streams: new Map(),
  }
}

export const relayFor = <Env>(state: LegacyState<Env>, lane: Lane<Env>): InputRelay =>
  lane.services.inputRelay ?? state.localRelay
export const principalOf = <Env>(lane: Lane<Env>) => subjectOf(lane.principal)
/** Two servers sharing keys cannot swap sessions (the same identity sealed states carry). */
export const serverOf = <Env>(state: LegacyState<Env>, lane: Lane<Env>) => `${state.server.info.name} ${lane.endpoint}`

/** The session sealer for the lane's request-state codec (none without one: no sessions). */
export function sessionsFor<Env>(state: LegacyState<Env>, codec: RequestStateCodec | undefined): LegacySessions | undefined {
  if (!codec) return undefined
  let found = state.sessions.get(codec)
  if (!found) {
    const ttl = state.options.sessionTtlMs
    found = new LegacySessions(codec, ttl === undefined ? {} : { ttlMs: ttl })
    state.sessions.set(codec, found)
  }
  return found
}

/**
 * What a write through this isolate answered, cached from when it began, and announced to the
 * session's open GET streams (`announce`); 404 if the session ended meanwhile. `refuse` (a
 * subscription past the cap) is asked first: what changed nothing is not announced, and an answer
 * that is not a retry does not wait on the hub.
 */
export async function learn<Env>(
  state: LegacyState<Env>,
  lane: Lane<Env>,
  session: LegacySession,
  write: Promise<SessionFacts>,
  refuse?: (facts: SessionFacts) => McpError | undefined,
): Promise<SessionFacts> {
  const startedAt = Date.now()
  const facts = await reachable(write)
  state.recent.put(session.nonce, facts, startedAt)
  // Ended while this request ran (a DELETE elsewhere, which announced it): what it wrote is kept, but for nobody.
  if (facts.revoked) throw new McpError('sessionNotFound')
  const refused = refuse?.(facts)
  if (refused) throw refused
  await announce(state, lane, session.nonce)
  return facts
}

/** How long a change waits for the hub to take its announcement; then it is `sessionsUnavailable`. */
export const ANNOUNCE_TIMEOUT_MS = 3_000
/** The waits before a DELETE's announcement is tried again, in the background, when the hub did not take it (`announceEnd`). */
export const END_RETRY_DELAYS_MS = [1_000, 5_000] as const

/** The hub GET streams listen to, where they open (an event hub and `sessionStreams`). */
function hubOf<Env>(state: LegacyState<Env>, lane: Lane<Env>) {
  const hub = state.server.events
  return typeof hub === 'object' && lane.services.sessionStreams ? hub : undefined
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** Publish the session's announcement; it throws when the hub fails or has not answered within `ANNOUNCE_TIMEOUT_MS`. */
async function publishChange(hub: NonNullable<ReturnType<typeof hubOf>>, nonce: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ANNOUNCE_TIMEOUT_MS} ms`)), ANNOUNCE_TIMEOUT_MS)
  })
  try {
    await Promise.race([hub.publish(sessionChanged(nonce)), late])
  } finally {
    if (timer !== undefined) clearTimeout(timer)
  }
}

/**
 * Tell the session's open GET streams, on every isolate, that its facts changed in the ledger
 * (server/legacy/stream-facts.ts), before the change's answer goes out. Only where GET streams
 * open. A hub that cannot be reached within `ANNOUNCE_TIMEOUT_MS` is `sessionsUnavailable` (503,
 * or -32603 for a method): the change is kept, and the retry announces it again.
 */
export async function announce<Env>(state: LegacyState<Env>, lane: Lane<Env>, nonce: string): Promise<void> {
  const hub = hubOf(state, lane)
  if (!hub) return
  try {
    await publishChange(hub, nonce)
  } catch (error) {
    libraryLog.error('session change not announced', { error: message(error) })
    throw new McpError('sessionsUnavailable', UNANNOUNCED)
  }
}

/**
 * Announce a session's end (a DELETE, http/legacy.ts) without failing its answer: the session has
 * ended whatever the hub says, and a client told otherwise keeps an id it can never end (its retry
 * is 404). Waits as `announce` does; when the hub did not take it, it is tried again in the
 * background (the lane's `waitUntil`) after each of `END_RETRY_DELAYS_MS`, each failure logged;
 * if none succeeds, open streams elsewhere end at their first event `STREAM_FACTS_TTL_MS` (30 s) or
 * more after their last read.
 */
export async function announceEnd<Env>(state: LegacyState<Env>, lane: Lane<Env>, nonce: string): Promise<void> {
  const hub = hubOf(state, lane)
  if (!hub) return
  const attempt = async (delay: number) => {
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay))
    await publishChange(hub, nonce)
  }
  const retry = async (error: unknown) => {
    for (const [i, delay] of END_RETRY_DELAYS_MS.entries()) {
      libraryLog.error('session end not announced', { error: message(error), retryInMs: delay, attempt: i + 1 })
      try {
        return await attempt(delay)
      } catch (failed) {
        error = failed
      }
    }
    libraryLog.error('session end not announced; open streams elsewhere end at their first event after 30 s', {
      error: message(error),
    })
  }
  try {
    await attempt(0)
  } catch (error) {
    const background = retry(error)
    lane.waitUntil?.(background)
  }
}

const UNANNOUNCED = 'Service unavailable: the event hub could not be told of the session’s change (it is kept); retry'

/** The client behind a non-initialize message: its session, or only its version header. A session that ended is 404. */
export async function clientOf<Env>(state: LegacyState<Env>, lane: Lane<Env>): Promise<Client> {
  const headers = lane.request.headers
  const header = headers.get(HEADER.protocolVersion)
  if (header !== null && !isLegacyVersion(header)) throw unsupportedVersion(header, SERVED)
  const token = headers.get(HEADER.sessionId)
  if (token === null) return { version: header ?? HEADERLESS_VERSION, capabilities: {}, info: undefined, session: undefined }
  const opened = sessionsFor(state, lane.services.requestState)?.open(token, serverOf(state, lane), principalOf(lane))
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
    const read = state.recent.get(ledger, sessionKey(session))
    who.facts = read instanceof Promise ? await reachable(read) : read
    if (who.facts.revoked) throw new McpError('sessionNotFound')
  }
  return who
}
