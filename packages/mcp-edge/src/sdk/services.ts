/**
 * What the adapter binds without being told: the services of `cloudflareServices`, from the
 * names the docs and templates use. `MCP_STATE_KEYS` when the secret is set (sealed rounds and
 * 2025 sessions); each Durable Object binding when the Worker has it. A ported Worker adds what
 * it needs to `wrangler.jsonc` and the adapter finds it; an explicit `services` option wins.
 * Also who the caller is: the props of a grant (`propsOf`, `principalFromProps`) or an SDK
 * `AuthInfo` handed over (`principalFromAuthInfo`).
 */
import { cloudflareServices } from '../cloudflare/index.ts'
import type { CloudflareServicesConfig } from '../cloudflare/index.ts'
import type { McpServices } from '../server/dispatch.ts'
import { memoryInputRelay } from '../server/input/input-relay.ts'
import type { Principal } from '../server/types.ts'
import { hasStateKeys } from './request-store.ts'
import type { AuthInfo } from './request-store.ts'

const BINDINGS: [keyof CloudflareServicesConfig, string][] = [
  ['tasks', 'MCP_TASKS'],
  ['nonces', 'MCP_NONCES'],
  ['inputRelay', 'MCP_INPUT_RELAY'],
  ['sessions', 'MCP_SESSIONS'],
]

/**
 * The services of an env by convention. `requireKeys`: configure `MCP_STATE_KEYS` even when it is
 * missing, so every request fails with how to set it (McpAgent keeps state per session).
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
  return { ...services, inputRelay: services.inputRelay ?? isolateRelay }
}

const isolateRelay = memoryInputRelay()

/** Props fields that name the person, in the order agents' templates fill them. */
const SUBJECT_FIELDS = ['sub', 'userId', 'user_id', 'login', 'email', 'username', 'id'] as const

const named = (value: unknown): value is string | number =>
  (typeof value === 'string' && value !== '') || typeof value === 'number'

/** The first naming field of an object, at its top or under `claims` or `user` (Auth0's, WorkOS's templates). */
function subjectOf(props: Record<string, unknown>): string | undefined {
  for (const holder of [props, props.claims, props.user]) {
    if (typeof holder !== 'object' || holder === null) continue
    for (const field of SUBJECT_FIELDS) {
      const value = (holder as Record<string, unknown>)[field]
      if (named(value)) return String(value)
    }
  }
  return undefined
}

/**
 * The principal of a grant's props (an OAuth provider in front, `ctx.props`): `custom` when given
 * (the `principal` option), else the first naming field as the subject. Undefined when nothing
 * names anyone.
 *
 * @example
 * principalFromProps({ login: 'octocat', accessToken: '…' }) // { subject: 'octocat' }
 */
export function principalFromProps(
  props: Record<string, unknown> | undefined,
  custom?: (props: Record<string, unknown>) => Principal | undefined,
): Principal | undefined {
  if (props === undefined) return undefined
  if (custom) return custom(props)
  const subject = subjectOf(props)
  if (subject === undefined) return undefined
  const scopes = Array.isArray(props.scopes) ? props.scopes.filter((scope) => typeof scope === 'string') : undefined
  return { subject, ...(scopes ? { scopes } : {}) }
}

/**
 * The caller an SDK `AuthInfo` names (SDK 2.x `handler.fetch(request, { authInfo })`): its
 * `extra.sub` (a user), else its client, with its scopes.
 */
export function principalFromAuthInfo(authInfo: AuthInfo): Principal {
  const sub = authInfo.extra?.sub
  return { subject: typeof sub === 'string' ? sub : authInfo.clientId, client_id: authInfo.clientId, scopes: authInfo.scopes }
}

/** The props an OAuth provider in front (workers-oauth-provider) put on the execution context. */
export function propsOf(ctx: { props?: unknown } | undefined): Record<string, unknown> | undefined {
  try {
    const props = ctx?.props
    if (typeof props !== 'object' || props === null) return undefined
    // Any own field makes them props (workerd gives every request an empty object).
    for (const _field in props) return props as Record<string, unknown>
    return undefined
  } catch {
    return undefined
  }
}
