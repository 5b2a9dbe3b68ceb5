/**
 * What the adapter binds without being told: the services of `cloudflareServices`, from the
 * names the docs and templates use. `MCP_STATE_KEYS` when the secret is set (sealed rounds and
 * 2025 sessions); each Durable Object binding when the Worker has it. A ported Worker adds what
 * it needs to `wrangler.jsonc` and the adapter finds it; an explicit `services` option wins;
 * and the `MCP_EVENTS` hub. Who the caller is, is principal.ts's.
 */
import { env as workerEnv } from 'cloudflare:workers'
import { cloudflareEventHub, cloudflareServices } from '../cloudflare/index.ts'
import type { EventHub } from '../server/events/events.ts'
import type { CloudflareServicesConfig } from '../cloudflare/index.ts'
import type { McpServices } from '../server/dispatch.ts'
import { memoryInputRelay } from '../server/input/input-relay.ts'
import type { InputRelay } from '../server/input/input-relay.ts'
import { warnOnce } from '../server/telemetry/log.ts'
import { hasStateKeys } from './request-store.ts'

const BINDINGS: [keyof CloudflareServicesConfig, string][] = [
  ['tasks', 'MCP_TASKS'],
  ['nonces', 'MCP_NONCES'],
  ['inputRelay', 'MCP_INPUT_RELAY'],
  ['sessions', 'MCP_SESSIONS'],
]

/**
 * The services of an env by convention. `requireKeys`: configure `MCP_STATE_KEYS` even when it is
 * missing, so every request fails with how to set it, and take a 2025 client's answers in the
 * isolate without a word: an McpAgent keeps state per session, and its session's requests, the
 * answers among them, all reach its one object.
 *
 * @example
 * createMcpHandler(server, { services: (env) => conventionalServices(env, false) })
 */
export function conventionalServices(env: unknown, requireKeys: boolean): McpServices {
  const bindings = (env ?? {}) as Record<string, unknown>
  const config: CloudflareServicesConfig = {}
  if (requireKeys || hasStateKeys(env)) config.stateKeys = 'MCP_STATE_KEYS'
  for (const [service, name] of BINDINGS) if (bindings[name]) (config as Record<string, string>)[service] = name
  const services = cloudflareServices(config)(env)
  // Without the relay binding, a 2025 client's answers meet their call within the isolate: one relay
  // for the whole isolate, since SDK code may build its handler (and server) per request.
  return { ...services, inputRelay: services.inputRelay ?? (requireKeys ? sameIsolate : isolateRelay) }
}

/** Said at the first question a 2025-era call asks through the isolate's own relay. */
export const ISOLATE_RELAY_WARNING =
  "A 2025-era client was asked a question with no MCP_INPUT_RELAY bound: its answer, a request of its own, is taken only if it reaches this isolate (Workers may route it to another, and the call then waits until it times out). Bind McpInputRelay as MCP_INPUT_RELAY (export { McpInputRelay } from 'mcp-edge/cloudflare'; docs/deploy.md)"

const sameIsolate = memoryInputRelay()

/**
 * A Worker's own `services` for `createMcpHandler`, with the isolate's relay (which says what it
 * is at its first question) where they give none: the core's own fallback would take a 2025
 * client's answers in the isolate without a word.
 */
export function withIsolateRelay<Env>(services: (env: Env) => McpServices): (env: Env) => McpServices {
  return (env) => {
    const given = services(env)
    return given.inputRelay ? given : { ...given, inputRelay: isolateRelay }
  }
}

/** The isolate's relay as `createMcpHandler` uses it, saying once (when a question is first asked through it) that it is one isolate's. */
const isolateRelay: InputRelay = {
  open(principal, count, timeoutMs, traces) {
    warnOnce(ISOLATE_RELAY_WARNING)
    return sameIsolate.open(principal, count, timeoutMs, traces)
  },
  wait: (exchangeId, signal) => sameIsolate.wait(exchangeId, signal),
  answer: (exchangeId, index, principal, answer) => sameIsolate.answer(exchangeId, index, principal, answer),
}

/**
 * The event hub by convention: `MCP_EVENTS` when the Worker binds it, so SDK-style list changes,
 * resource updates and logs reach every isolate's listeners without an `events` option.
 */
export function conventionalEvents(): EventHub | undefined {
  // One per isolate: a factory builds a server (and asks for it) per request, and the Worker's
  // bindings do not change while the isolate lives. A socket per stream, not shared hub sockets:
  // this hub also serves McpAgent's objects, whose streams would share a socket with another
  // object's or a plain request's in the same isolate, which shared-sockets.ts does not provide for.
  if (conventionalHub === null) {
    const bindings = workerEnv as unknown as Record<string, unknown> | undefined
    conventionalHub = bindings?.MCP_EVENTS ? cloudflareEventHub({ binding: 'MCP_EVENTS' }) : undefined
  }
  return conventionalHub
}

/** The `MCP_EVENTS` hub once looked for (`null`: not yet). */
let conventionalHub: EventHub | undefined | null = null
