/**
 * Who calls, from what an OAuth provider in front of the Worker handed over: the grant's props
 * (`ctx.props`, agents' `this.props`) name the principal, and the provider's own account of the
 * token (`ctx.auth`) says which scopes it was granted. No Workers runtime import, so the unit tests
 * run it in Node.
 */
import { McpError } from '../protocol/errors.ts'
import { errorFields, libraryLog, warnOnce } from '../server/telemetry/log.ts'
import type { Principal } from '../server/types.ts'

/**
 * Props fields that name the person, in the order agents' templates fill them (`userEmail` last, so
 * that no props which named someone before this field was added name someone else now:
 * Cloudflare's remote-mcp-server demo).
 */
const SUBJECT_FIELDS = ['sub', 'userId', 'user_id', 'login', 'email', 'username', 'id', 'userEmail'] as const

/** The naming fields as a refusal lists them (porting round X: it listed three of the places as if they were all). */
const NAMING_FIELDS = `${SUBJECT_FIELDS.slice(0, -1).join(', ')} or ${SUBJECT_FIELDS.at(-1)}`

const named = (value: unknown): value is string | number =>
  (typeof value === 'string' && value !== '') || typeof value === 'number'

/**
 * The first naming field of an object, at its top or under `claims` or `user` (Auth0's, WorkOS's
 * templates), or `account` (mcp-server-cloudflare's account tokens, whose caller is the account:
 * `account:<id>`, apart from any user's subject).
 */
function subjectOf(props: Record<string, unknown>): string | undefined {
  for (const [holder, prefix] of [
    [props, ''],
    [props.claims, ''],
    [props.user, ''],
    [props.account, 'account:'],
  ] as const) {
    if (typeof holder !== 'object' || holder === null) continue
    for (const field of SUBJECT_FIELDS) {
      const value = (holder as Record<string, unknown>)[field]
      if (named(value)) return `${prefix}${value}`
    }
  }
  return undefined
}

/**
 * What an OAuth provider in front verified of the request's token: workers-oauth-provider puts it
 * on the execution context as `ctx.auth` (`token`, `scope`, `clientId`, `expiresAt`, `audience`)
 * beside the grant's props. Agents builds the SDK's `authInfo` from it.
 */
export interface Grant {
  readonly token: string
  readonly scopes: readonly string[]
  readonly clientId: string | undefined
  readonly expiresAt: number | undefined
  /** The resource the token was issued for (`audience`). */
  readonly resource: string | undefined
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)

/** The provider's `ctx.auth`, or undefined when the context has none (or not in that shape). */
export function grantOf(ctx: unknown): Grant | undefined {
  try {
    const auth = (ctx as { auth?: unknown } | undefined)?.auth as Record<string, unknown> | undefined
    const token = text(auth?.token)
    if (token === undefined || !Array.isArray(auth?.scope)) return undefined
    const expiresAt = typeof auth.expiresAt === 'number' && Number.isFinite(auth.expiresAt) ? auth.expiresAt : undefined
    const scopes = auth.scope.filter((scope): scope is string => typeof scope === 'string')
    return { token, scopes, clientId: text(auth.clientId), expiresAt, resource: text(auth.audience) }
  } catch {
    return undefined
  }
}

/**
 * The principal of a grant's props (an OAuth provider in front, `ctx.props`): `custom` when given
 * (the `principal` option), else the first naming field as the subject. Undefined when nothing
 * names anyone. Scopes: the ones the provider says the token was granted (`grant`), so a tool's
 * `scopes` limit the caller as its token does; where the principal names some too (the props'
 * `scopes`, or `custom`'s), only those in both. Without either, scopes limit nothing.
 *
 * @example
 * principalFromProps({ login: 'octocat', accessToken: '…' }) // { subject: 'octocat' }
 */
export function principalFromProps(
  props: Record<string, unknown> | undefined,
  custom?: (props: Record<string, unknown>) => Principal | undefined,
  grant?: Grant,
): Principal | undefined {
  if (props === undefined) return undefined
  const named = custom ? custom(props) : defaultPrincipal(props)
  if (named === undefined || grant === undefined) return named
  const client = grant.clientId === undefined ? {} : { client_id: grant.clientId }
  return { ...client, ...named, scopes: scopesOf(named.scopes, grant.scopes) }
}

/** What of the serving options decides whether, and how, props name the caller (`callerFromProps`). */
export interface PropsOptions {
  principal?: ((props: Record<string, unknown>) => Principal | undefined) | undefined
  authenticate?: unknown
  resourceServer?: unknown
  allowAnonymous?: boolean | undefined
}

/**
 * The caller a request's props name, as `createMcpHandler` and `McpAgent.serve` take it (`who`
 * names which in the log, `where` in the client's message). None without props, nor when the options authenticate callers themselves
 * (`authenticate`, `resourceServer`): those name the caller, and the props reach only
 * `getMcpAuthContext()` and `this.props`. Props that name no one (unless anonymous callers are
 * served), and a `principal` option that throws, are the operator's to fix: a `misconfigured`
 * McpError (500) whose message says how, also in the log once per isolate.
 *
 * @example
 * const principal = callerFromProps(propsOf(ctx), grantOf(ctx), options, 'McpAgent.serve', 'serve()')
 */
export function callerFromProps(
  props: Record<string, unknown> | undefined,
  grant: Grant | undefined,
  options: PropsOptions,
  who: string,
  where: string,
): Principal | undefined {
  if (props === undefined || options.authenticate !== undefined || options.resourceServer !== undefined) return undefined
  let named: Principal | undefined
  try {
    named = principalFromProps(props, options.principal, grant)
  } catch (error) {
    libraryLog.error(`${who}'s principal option threw`, errorFields(error))
    throw new McpError('misconfigured', `Server misconfigured: ${where}'s principal option threw; see the server logs`)
  }
  if (named !== undefined || options.allowAnonymous) return named
  const why = namesNoOne(where)
  warnOnce(`${who} answers 500: ${why}`)
  throw new McpError('misconfigured', `Server misconfigured: ${why}`)
}

/** Why props that name no one are refused (500): `where` takes the `principal` option that names the caller. */
export function namesNoOne(where: string): string {
  return `the grant's props name no one: give them one of ${NAMING_FIELDS}, at their top or under claims, user or account, or pass ${where}'s principal option (docs/migrate.md)`
}

/** Both lists: the scopes in both (a token narrowed below the props' list is held to it); else the one given. */
function scopesOf(named: readonly string[] | undefined, granted: readonly string[]): readonly string[] {
  return named === undefined ? granted : named.filter((scope) => granted.includes(scope))
}

function defaultPrincipal(props: Record<string, unknown>): Principal | undefined {
  const subject = subjectOf(props)
  if (subject === undefined) return undefined
  const scopes = Array.isArray(props.scopes) ? props.scopes.filter((scope) => typeof scope === 'string') : undefined
  return { subject, ...(scopes ? { scopes } : {}) }
}

/** The SDK's `AuthInfo`: what the caller's credentials say. */
export interface AuthInfo {
  token: string
  clientId: string
  scopes: string[]
  expiresAt?: number
  resource?: URL
  /** The protected resource metadata URL (`requireBearerAuth`'s `resourceMetadataUrl`). */
  resourceMetadataUrl?: string
  extra?: Record<string, unknown>
}

/**
 * What SDK 2.x code handed over with `handler.fetch(request, { authInfo })`, as a provider in front
 * hands it: the props are `authInfo.extra` (`extra.props` when agents built it), and name the client
 * (`client:<clientId>`, apart from any user's subject) when they name no one, so that every caller
 * without a user of its own is that client; the grant is the rest of `authInfo`.
 *
 * @example
 * fromAuthInfo({ token: 't', clientId: 'app', scopes: [], extra: { sub: 'sam' } }).props // { sub: 'sam' }
 */
export function fromAuthInfo(authInfo: AuthInfo): { props: Record<string, unknown>; grant: Grant } {
  const extra = authInfo.extra?.props ?? authInfo.extra
  const given = typeof extra === 'object' && extra !== null ? (extra as Record<string, unknown>) : {}
  const props = subjectOf(given) === undefined ? { ...given, sub: `client:${authInfo.clientId}` } : given
  const grant: Grant = {
    token: authInfo.token,
    scopes: authInfo.scopes,
    clientId: authInfo.clientId,
    expiresAt: authInfo.expiresAt,
    resource: authInfo.resource?.href,
  }
  return { props, grant }
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
