/**
 * Building a handler's context for a call, and the multi-round-trip wrapper shared by the three
 * methods that may answer `input_required` (mrtr.mdx table: tools/call, prompts/get,
 * resources/read). The wrapper verifies an echoed `requestState` before anything runs, redeems
 * single-use states, runs the body, and turns open questions into an `InputRequiredResult` with a
 * freshly sealed state.
 */
import { McpError } from '../../protocol/errors.ts'
import type { Call } from '../dispatch.ts'
import { InputRequired, InputRound, readInputResponses } from '../input/input-round.ts'
import { digestArguments } from '../request-state.ts'
import type { OpenedState, StateBinding } from '../request-state.ts'
import { RequestScope } from '../scope.ts'
import type { Awaitable } from '../types.ts'
import { subjectOf } from '../principal.ts'
import { ATTR } from '../telemetry/conventions.ts'
import { libraryLog } from '../telemetry/log.ts'
import { formatTraceparent, parseTraceparent } from '../telemetry/trace-context.ts'

/**
 * A handler context for a call. Without `input` it is for methods that never ask for input
 * (lists, completion, listen), whose `ask` refuses.
 */
export function plainScope(call: Call, input?: InputRound, state: Record<string, unknown> = {}, round = 1): RequestScope {
  return new RequestScope({
    requestId: call.request.id,
    method: call.request.method,
    meta: call.meta,
    env: call.options.env,
    principal: call.options.principal,
    upstream: call.options.upstream,
    waitUntil: call.options.waitUntil,
    cancel: call.options.cancel,
    outbox: call.options.outbox,
    logLevel: call.logLevel,
    input: input ?? new InputRound('', {}, {}, call.meta.clientCapabilities),
    state,
    round,
  })
}

export interface InputTarget {
  /** Tool or prompt name, or resource URI: what the sealed state is bound to. */
  target: string
  args: unknown
  singleUse: boolean
}

/**
 * Run `body` with a context whose `ask` can collect input across rounds.
 *
 * @example
 * return runWithInput(call, { target: name, args, singleUse: false }, (scope) => handler(args, scope))
 */
export async function runWithInput(
  call: Call,
  target: InputTarget,
  body: (scope: RequestScope) => Awaitable<object>,
): Promise<object> {
  const { options, request } = call
  // A 2025-era client is asked directly (askClient); `inputResponses` and `requestState` are
  // 2026-07-28 retry parameters, so its requests' fields of those names mean nothing here.
  const params = options.askClient ? {} : call.params
  const sent = readInputResponses(params.inputResponses)
  const codec = options.requestState
  let digest: string | undefined
  const binding = async (): Promise<StateBinding> => {
    digest ??= await digestArguments(target.args)
    return {
      method: request.method,
      target: target.target,
      argsDigest: digest,
      principal: subjectOf(options.principal),
      // Two servers sharing keys cannot swap states; the version is left out so a deploy keeps them.
      server: `${call.server.info.name} ${options.endpoint ?? ''}`,
    }
  }

  const opened = params.requestState === undefined ? undefined : await openState(call, target, params.requestState, binding)
  // mrtr.mdx: answers are read only for what a verified state says was asked; anything else
  // (no state at all, or keys the server never asked for) is ignored, so a request cannot
  // pre-answer a confirmation and skip the round that redeems its state.
  const responses = answersAsked(sent, opened?.pending)

  // The rounds of one call are linked: each round's span to the span of the round before it.
  const previous = parseTraceparent(opened?.trace)
  if (previous) call.span?.addLink({ context: previous, attributes: { [ATTR.linkKind]: 'previous_round' } })
  let answers = opened?.answers ?? {}
  let state = opened?.state
  let number = opened?.round
  for (;;) {
    const round = new InputRound(request.method, answers, responses, call.meta.clientCapabilities)
    const scope = plainScope(call, round, state, number)
    call.span?.setAttribute(ATTR.inputRound, scope.round)
    let result: object | undefined
    try {
      result = await body(scope)
    } catch (error) {
      if (!(error instanceof InputRequired) && round.pending === undefined) throw error
    }
    if (round.pending === undefined) return result as object
    if (options.askClient) {
      // 2025-era lane: ask the client directly, then run the handler again with every answer so
      // far, exactly as a retry would (the state stays in memory; nothing is sealed).
      const telemetry = call.span && call.server.observers.telemetry(options.env)
      const traced = telemetry && call.span && { telemetry, parent: call.span, log: call.server.observers.log }
      answers = { ...answers, ...round.used, ...(await options.askClient(round.pending, traced, round.deadline)) }
      state = scope.state
      number = scope.round + 1
      continue
    }
    if (!codec) {
      // A configuration error the caller cannot fix, said as one (500, the fix named), not a bare -32603.
      throw new McpError(
        'misconfigured',
        'Server misconfigured: a handler asked for input, but no requestState keys are configured: set the MCP_STATE_KEYS secret and pass cloudflareServices({ stateKeys: "MCP_STATE_KEYS" }) to mcp() (docs/multi-round-trip.md)',
      )
    }
    // A state that could not be redeemed once is never handed out (it would replay).
    if (target.singleUse && !options.nonces) throw singleUseUnavailable(target.target)
    const requestState = await codec.seal(await binding(), {
      round: scope.round + 1,
      answers: { ...answers, ...round.used },
      pending: Object.keys(round.pending),
      state: scope.state,
      trace: call.span && formatTraceparent(call.span.context),
    })
    return { resultType: 'input_required', inputRequests: round.pending, requestState }
  }
}

/** Verify an echoed state against this retry, and redeem it when the target is single-use. */
async function openState(
  call: Call,
  target: InputTarget,
  token: unknown,
  binding: () => Promise<StateBinding>,
): Promise<OpenedState> {
  const { requestState: codec, nonces } = call.options
  if (!codec) {
    libraryLog.warn('requestState rejected', { reason: 'no requestState keys are configured on this server' })
    throw new McpError('invalidParams', 'Invalid params: invalid requestState')
  }
  const opened = await codec.open(token, await binding())
  if (target.singleUse) {
    if (!nonces) throw singleUseUnavailable(target.target)
    if (!(await nonces.redeem(opened.nonce, opened.expiresAt))) throw codec.reject(`replayed state for ${target.target}`)
  }
  return opened
}

/** The answers among `sent` that a verified state recorded as asked for. */
function answersAsked(sent: Record<string, unknown>, pending: readonly string[] | undefined): Record<string, unknown> {
  const asked: Record<string, unknown> = {}
  for (const key of pending ?? []) if (Object.hasOwn(sent, key)) asked[key] = sent[key]
  return asked
}

/** How to bind the nonce ledger, or opt out, for a destructive tool that asks for input. */
export const SINGLE_USE_HINT =
  'bind a nonce ledger (the Durable Object binding MCP_NONCES of class McpNonceLedger in wrangler.jsonc, ' +
  "with export { McpNonceLedger } from 'mcp-edge/cloudflare' in the main module; on the native API, " +
  "cloudflareServices({ nonces: 'MCP_NONCES' }) too, where mcp-edge/sdk finds it by name: docs/deploy.md), " +
  'mark the tool readOnlyHint: true or destructiveHint: false if it is, or opt out with singleUseState: false'

/**
 * The start-up message of a server that seals states but has no nonce ledger: names its
 * destructive tools, whose states will be refused, and the binding that fixes it. Undefined when
 * nothing is wrong.
 *
 * @example
 * const message = singleUseWarning(server.tools.values(), services)
 */
export function singleUseWarning(
  tools: Iterable<{ name: string; singleUseState: boolean }>,
  services: Pick<Call['options'], 'requestState' | 'nonces'>,
): string | undefined {
  if (!services.requestState || services.nonces) return undefined
  const names = [...tools].filter((tool) => tool.singleUseState).map((tool) => tool.name)
  if (names.length === 0) return undefined
  return `No nonce ledger is configured, so these destructive tools answer 500 if they ask for input (their requestState would replay): ${names.join(', ')}. To fix: ${SINGLE_USE_HINT}`
}

/**
 * A single-use tool's state without a ledger to redeem it: refused (500, the fix in the message),
 * never sealed or honoured, since it could be replayed.
 */
function singleUseUnavailable(name: string): McpError {
  const message = `"${name}" is destructive (MCP: readOnlyHint not true, destructiveHint not false), so its requestState is single-use, but no nonce ledger is configured: ${SINGLE_USE_HINT}`
  libraryLog.error('single-use state refused', { reason: message })
  return new McpError('misconfigured', `Server misconfigured: ${message}`)
}
