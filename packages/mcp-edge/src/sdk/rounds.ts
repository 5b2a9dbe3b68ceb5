/**
 * Runs an SDK-style handler on mcp-edge's multi-round-trip rounds. A handler that returns
 * `inputRequired({ inputRequests })` has its questions asked through the core's `ctx.ask` and is
 * called again with `ctx.mcpReq.inputResponses` holding the answers to that round's questions, as
 * SDK 2.x's retry carries them (what earlier rounds learned travels in the handler's own
 * `requestState`); a question asked again under a key already answered (a declined confirmation
 * asked once more) is a new question, sent under a new wire key (`confirm~2`), and read back under
 * the handler's own key.
 *
 * What must survive a round (the questions asked, the handler's own `requestState`) is kept in
 * `ctx.state`, which the core seals into the next `requestState`.
 */
import { McpError } from '../protocol/errors.ts'
import type { InputRequest } from '../server/input/input.ts'
import { ClientAnswerError } from '../server/input/input-round.ts'
import type { InputRequired } from '../server/input/input-round.ts'
import type { RequestContext } from '../server/types.ts'
import { createExtra } from './context.ts'
import { ErrorCode, ProtocolError } from './errors.ts'
import type { RequestHandlerExtra, RunState } from './context.ts'
import type { Announcements } from './notifier.ts'
import { isInputRequired, MAX_ROUNDS_PER_CALL, rawSpec, ROUNDS, tooManyRounds } from './input.ts'
import { currentRequest, hostOf, missingStateKeys, withHandler } from './request-store.ts'
import type { Frame } from './request-store.ts'
import type { InputRequiredResult } from './input.ts'

/** What the server lends its definitions: list-change announcements, the handler state's decoder. */
export interface Hooks extends Announcements {
  /** SDK 2.x `requestState.verify`: turns a handler's own state back into its payload. */
  decodeState?: ((state: string, extra: RequestHandlerExtra) => Promise<unknown>) | undefined
  /** A handler of the server runs (the server has served: McpServer announces registrations from then on). */
  ran?: (() => void) | undefined
  /** What a handler threw, before it is answered (`server.server.onerror` hears the unexpected ones). */
  threw?: ((error: unknown, ctx: RequestContext<unknown>) => void) | undefined
}

/** Sealed between rounds: the open questions by wire key, each with the handler's key. */
const PENDING = 'sdk:pending'
/** Sealed between rounds: the wire keys of the last round's questions, whose answers the next run reads. */
const LAST_ROUND = 'sdk:last'
/** Sealed between rounds: the handler's own `requestState`. */
const HANDLER_STATE = 'sdk:requestState'

interface Pending {
  key: string
  request: InputRequest
}

type Asked = Record<string, Pending>

/** What a run ends with when an awaited question went to the client (`park`). */
const PARKED = Symbol('parked')

export const isThenable = <T>(value: T | PromiseLike<T>): value is PromiseLike<T> =>
  typeof (value as { then?: unknown } | null)?.then === 'function'

/**
 * Questions whose answers are in: the core keeps the answers sealed, and reads them again by
 * method only, so the question itself (a long sampling prompt, say) is not carried in the sealed
 * state of every later round.
 */
function answered(asked: Asked): void {
  for (const pending of Object.values(asked)) {
    const { method, params } = pending.request
    const mode = (params as { mode?: unknown }).mode
    pending.request = { method, params: mode === undefined ? {} : { mode } } as InputRequest
  }
}

/** Ask the questions of `asked` (by wire key) and return the answers by the handler's keys. */
async function answersOf(ctx: RequestContext<unknown>, asked: Asked): Promise<Record<string, unknown>> {
  const specs = Object.fromEntries(Object.entries(asked).map(([wire, { request }]) => [wire, rawSpec(request)]))
  const answers = await ctx.ask(specs)
  return Object.fromEntries(Object.entries(asked).map(([wire, { key }]) => [key, answers[wire]]))
}

/**
 * A 2025-era client answered an `inputRequired` question with an error: the call fails as SDK
 * 2.x's fails it, naming the method (a tool's `isError` result, else -32603). Anything else passes on.
 */
function refused<R>(
  error: unknown,
  ctx: RequestContext<unknown>,
  failed: ((error: unknown, ctx: RequestContext<unknown>) => R) | undefined,
): R {
  if (!(error instanceof ClientAnswerError)) throw error
  const message = `Fulfilling input required by '${ctx.method}' failed: ${error.answer?.message ?? 'no answer'}`
  if (ctx.method === 'tools/call' && failed) return failed(new ProtocolError(ErrorCode.InternalError, message), ctx)
  throw new McpError('internalError', message)
}

/** The questions of `asked` under `wires`. */
function pick(asked: Asked, wires: string[]): Asked {
  return Object.fromEntries(wires.filter((wire) => Object.hasOwn(asked, wire)).map((wire) => [wire, asked[wire] as Pending]))
}

/** The wire key of a question: the handler's key, or a fresh one when that key was asked before. */
function wireKey(key: string, taken: Asked): string {
  if (!(key in taken)) return key
  let n = 2
  while (`${key}~${n}` in taken) n++
  return `${key}~${n}`
}

/** The handler's own state as it reads it: decoded by the server's `requestState.verify`, if any. */
async function decodeState<Env>(
  ctx: RequestContext<Env>,
  run: RunState,
  hooks: Hooks,
  raw: unknown,
  frame: Frame,
): Promise<void> {
  if (typeof raw !== 'string' || !hooks.decodeState) {
    run.handlerState = raw
    return
  }
  try {
    run.handlerState = await hooks.decodeState(raw, createExtra(ctx, run, frame.store) as RequestHandlerExtra)
  } catch {
    // As the SDK's seam answers a state its verify refuses (expired, bound elsewhere).
    throw new McpError('invalidParams', 'Invalid params: invalid requestState')
  }
}

type Handler<Env, R> = (extra: RequestHandlerExtra<Env>) => Promise<R | InputRequiredResult> | R | InputRequiredResult

/**
 * Call `handler` until it returns something other than an input-required result, as a handler of
 * the request its context serves (module-level functions such as `getMcpAuthContext()` read it).
 *
 * @example
 * return runSdkHandler(ctx, hooks, (extra) => callback(args, extra))
 */
export function runSdkHandler<Env, R>(
  ctx: RequestContext<Env>,
  hooks: Hooks,
  handler: Handler<Env, R>,
  /** What a run that throws answers instead (a tool's `isError` result); rethrow what is not its to answer. */
  failed?: (error: unknown, ctx: RequestContext<unknown>) => R,
): Promise<R> {
  // McpAgent's object serves in an async context of its own request: the fallback.
  const frame: Frame = { store: hostOf(ctx) ?? currentRequest(), handler: undefined }
  return withHandler(frame, () => runRounds(ctx, hooks, handler, failed, frame))
}

async function runRounds<Env, R>(
  ctx: RequestContext<Env>,
  hooks: Hooks,
  handler: Handler<Env, R>,
  failed: ((error: unknown, ctx: RequestContext<unknown>) => R) | undefined,
  frame: Frame,
): Promise<R> {
  const context = ctx as RequestContext<unknown>
  hooks.ran?.()
  // Every field given here, so the object keeps one shape as the rounds set them.
  const run: RunState = {
    responses: undefined,
    handlerState: undefined,
    asked: 0,
    hooks,
    park: undefined,
    digests: undefined,
    dropped: undefined,
    signal: undefined,
  }
  // A first round (nearly every call) has neither: nothing to decode, nothing to read.
  const sealed = ctx.state[HANDLER_STATE]
  if (sealed !== undefined) await decodeState(ctx, run, hooks, sealed, frame)
  // The last round's questions: their answers are in this request, read them first (a state sealed
  // before the last round was kept, by an earlier release, reads every round's).
  const asked = (ctx.state[PENDING] ?? {}) as Asked
  if (ctx.state[PENDING] !== undefined) {
    const last = ctx.state[LAST_ROUND] as string[] | undefined
    try {
      run.responses = await answersOf(context, last ? pick(asked, last) : asked)
    } catch (error) {
      return refused(error, context, failed)
    }
    answered(asked)
  }
  let rounds = (ctx.state[ROUNDS] as number | undefined) ?? 0
  for (;;) {
    run.asked = 0
    run.digests = undefined
    run.dropped = undefined
    run.signal = undefined
    let result: R | InputRequiredResult | typeof PARKED
    let parked: InputRequired | undefined
    try {
      const extra = createExtra(ctx, run, frame.store)
      frame.handler = extra
      const running = handler(extra)
      // An awaited question the client has not answered leaves its run waiting for good (`park`):
      // the round ends with the question, and the run is dropped. The question is asked after the
      // handler's first await at the earliest, so `park` is set in time.
      result = !isThenable(running)
        ? running
        : await new Promise<R | InputRequiredResult | typeof PARKED>((resolve, reject) => {
            run.park = (pending) => {
              parked = pending
              resolve(PARKED)
            }
            running.then(resolve, reject)
          })
    } catch (error) {
      hooks.threw?.(error, context)
      if (!failed) throw error
      return failed(error, context)
    } finally {
      frame.handler = undefined
      // A question the dropped run asks later (beside the one that parked it) waits for good too.
      run.park = () => {}
    }
    if (result === PARKED) {
      // The dropped run's signal aborts (its `finally` never runs), and the round counts toward
      // the cap, across requests: a question whose text changes each run is asked anew each time,
      // and past the cap `SdkExtra.ask` refuses it before it is sent.
      ctx.state[ROUNDS] = rounds + 1
      // (Set by the run's `extra.signal`, read while the handler ran: not `undefined` as reset above.)
      ;(run.dropped as AbortController | undefined)?.abort(
        new DOMException('the run was dropped for a question: it runs again with the answer', 'AbortError'),
      )
      throw parked
    }
    if (!isInputRequired(result)) return result
    if (rounds >= MAX_ROUNDS_PER_CALL) throw tooManyRounds()
    ctx.state[ROUNDS] = ++rounds
    // The handler's own state is the last round's, as a client echoes the last result's only.
    const handlerState = result.requestState
    if (handlerState === undefined) delete ctx.state[HANDLER_STATE]
    else ctx.state[HANDLER_STATE] = handlerState
    const requests = Object.entries(result.inputRequests ?? {})
    if (requests.length === 0) {
      // SDK 2.x paces a state-only round and calls again; mcp-edge's rounds are driven by questions.
      throw new McpError(
        'internalError',
        'inputRequired() with requestState and no inputRequests is not supported by mcp-edge/sdk: ask a question in the round, or keep the state in ctx.edge.state',
      )
    }
    if (frame.store?.stateKeys === false) throw missingStateKeys()
    const fresh: Asked = {}
    for (const [key, request] of requests) {
      // Every question asked before has its answer by now: asking one again is a new question.
      const wire = wireKey(key, asked)
      fresh[wire] = { key, request }
      asked[wire] = { key, request }
    }
    ctx.state[PENDING] = asked
    ctx.state[LAST_ROUND] = Object.keys(fresh)
    try {
      run.responses = await answersOf(context, fresh)
    } catch (error) {
      return refused(error, context, failed)
    }
    answered(asked)
    // Answered in this request (a 2025-era client, asked on the call's stream): the next run reads
    // the state as a retry would, decoded by the server's verify then, not when it was made.
    if (handlerState === undefined) run.handlerState = undefined
    else await decodeState(ctx, run, hooks, handlerState, frame)
  }
}
