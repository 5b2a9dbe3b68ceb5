/**
 * What both lanes of the endpoint get from the entry handler once a request has passed the
 * transport guards, authentication and body parsing: the request, who sent it, the Worker env
 * and its services, and how to answer. Also the options every run hands the server, in one place.
 */
import type { JsonRpcResponse } from '../protocol/jsonrpc.ts'
import type { LazyAbort } from '../server/cancellation.ts'
import type { HandleOptions, McpServices } from '../server/dispatch.ts'
import type { Outbox, OutboxOptions } from '../server/outbox.ts'
import type { Principal, UpstreamAccess } from '../server/types.ts'
import { subjectOf } from '../server/principal.ts'
import type { MessageScope, Observer } from '../server/telemetry/observe.ts'
import type { SpanContext } from '../server/telemetry/trace-context.ts'

export interface RespondOptions {
  stream: OutboxOptions | undefined
  keepaliveMs: number
}

/** Where one run writes: its stream's queue and the signal its handler sees. */
export interface Run {
  outbox: Outbox
  cancel: LazyAbort
}

export interface Lane<Env> {
  request: Request
  env: Env
  principal: Principal | undefined
  /** The caller's identity provider, as the host's auth middleware gave it (`ctx.upstream`). */
  upstream?: UpstreamAccess | undefined
  services: McpServices
  respond: RespondOptions
  /** The endpoint's path, which sealed states are bound to. */
  endpoint: string
  waitUntil: ((promise: Promise<unknown>) => void) | undefined
  /** Headers a server-made refusal needs: `WWW-Authenticate` (403 insufficient_scope), `Retry-After` (429). */
  challenge(message: JsonRpcResponse, status: number): Record<string, string> | undefined
  /** The server's observer for this env (spans, the metric, log lines, hooks), when anything observes. */
  observer?: Observer | undefined
  /** The HTTP request's own trace context (`traceparent` header), read when anything observes. */
  transport?: SpanContext | undefined
}

/** The options of one run of the server, for either lane (`session`: a 2025 session's public id). */
export function handleOptions<Env>(
  lane: Lane<Env>,
  run: Run,
  era: MessageScope['era'] = 'modern',
  session?: string,
): HandleOptions<Env> {
  const scope: MessageScope | undefined = lane.observer && {
    era,
    sessionId: session,
    transport: lane.transport,
    principal: subjectOf(lane.principal),
    waitUntil: lane.waitUntil,
  }
  // The services first: a leading spread copies them in one step (V8 clones the object), where a
  // spread after other properties is a slower generic copy. None of their names is one of these.
  return {
    ...lane.services,
    env: lane.env,
    principal: lane.principal,
    upstream: lane.upstream,
    outbox: run.outbox,
    cancel: run.cancel,
    waitUntil: lane.waitUntil,
    endpoint: lane.endpoint,
    observe: lane.observer && scope ? { observer: lane.observer, scope } : undefined,
  }
}
