/**
 * SDK 2.x `handler.notify` (`ServerNotifier`) on mcp-edge's event delivery. SDK 2.x publishes on
 * an in-process bus; a Worker's next request runs in another isolate, so each member here
 * publishes through the event hub the served server uses (its `events` option, or the `MCP_EVENTS`
 * hub it found by convention), which reaches 2026-07-28 listen streams and 2025 GET streams in
 * every isolate. Built by handler.ts; not on the request path (nothing here runs per request).
 *
 * Where an event goes: the handler's server, or for a factory the server it built last in this
 * isolate (a factory's servers share their delivery: the Worker's hub, or the same `events`
 * option); before a factory built any, or when that server has no delivery of its own, straight to
 * the conventional hub (`MCP_EVENTS`). A server with `events: 'isolate'` delivers to its own
 * listeners in this isolate. Without any delivery no
 * listener anywhere could hear it (listen streams and GET streams need one), so the call throws
 * naming `MCP_EVENTS` rather than dropping the notification.
 */
import type { EventHub, ListKind, McpEvent } from '../server/events/events.ts'
import { Attached } from '../server/attached.ts'
import type { McpServer as EdgeServer } from '../server/server.ts'
import { errorFields, libraryLog } from '../server/telemetry/log.ts'
import { currentRequest } from './request-store.ts'

/**
 * SDK 2.x's `ServerNotifier`. Each member returns a promise that settles once the hub has the
 * event (SDK 2.x's return nothing, which this still satisfies): code outside a request the handler
 * serves (another route, a `scheduled` handler) hands it to `ctx.waitUntil`. A failure to publish
 * is logged, never rejected.
 */
export interface ServerNotifier {
  /** `notifications/tools/list_changed` to every listener that asked for tool list changes. */
  toolsChanged(): Promise<void>
  /** `notifications/prompts/list_changed` to every listener that asked for prompt list changes. */
  promptsChanged(): Promise<void>
  /** `notifications/resources/list_changed` to every listener that asked for resource list changes. */
  resourcesChanged(): Promise<void>
  /** `notifications/resources/updated` for `uri` to every listener subscribed to it (or a parent of it). */
  resourceUpdated(uri: string): Promise<void>
}

/** What a notifier needs of a server: where its events go, and how it publishes one (with its span). */
type Publisher = Pick<EdgeServer<unknown>, 'events' | 'publish'>

/** Where a notifier publishes: the server serving now, else a hub found without one. */
export interface NotifierTarget {
  server(): Publisher | undefined
  hub(): EventHub | undefined
}

/** A notification on its way: its failure logged, the adapter's request (if any) kept alive until it is sent. */
export function publishing(sending: Promise<void>, lost: string): Promise<void> {
  const sent = sending.catch((error: unknown) => libraryLog.error(lost, errorFields(error)))
  currentRequest()?.waitUntil?.(sent)
  return sent
}

function noDelivery(call: string): Error {
  return new Error(
    `${call}: no event hub to publish on, so no listener in any isolate could hear it. Bind the McpEventHub ` +
      "Durable Object as MCP_EVENTS in wrangler.jsonc (and export { McpEventHub } from 'mcp-edge/cloudflare'), " +
      'or give the server the events option (docs/migrate.md).',
  )
}

/** The server a factory built last in this isolate: where its handler's `notify` publishes. */
const latest = new Attached<Publisher>('mcp-edge.latestServer')

/** A factory built `server` (handler.ts, once per build: never on a request served by a built app). */
export function factoryBuilt(factory: object, server: Publisher): void {
  latest.set(factory, server)
}

/**
 * `handler.notify` of a served server (mcp-edge's, under an SDK-style one), or of a factory, whose
 * servers may not exist yet in this isolate (then `hub`, the Worker's `MCP_EVENTS`).
 */
export function notifierOf(served: Publisher | ((...args: never[]) => unknown), hub: () => EventHub | undefined): ServerNotifier {
  const server = typeof served === 'function' ? () => latest.get(served) : () => served
  return createNotifier({ server, hub })
}

/**
 * @example
 * const notify = createNotifier({ server: () => server.edge, hub: () => undefined })
 * await notify.resourceUpdated('counter://value')
 */
export function createNotifier(target: NotifierTarget): ServerNotifier {
  const publish = (event: McpEvent, call: string, lost: string): Promise<void> => {
    const server = target.server()
    if (server?.events !== undefined) return publishing(server.publish(event), lost)
    // A factory that built none yet, or a server without delivery of its own: the Worker's hub, so
    // the same call publishes the same way whatever this isolate has served.
    const hub = target.hub()
    if (!hub) throw noDelivery(call)
    return publishing(
      hub.publish(event).then(() => undefined),
      lost,
    )
  }
  const listChanged = (list: ListKind, member: string) => () =>
    publish({ type: 'listChanged', list }, `handler.notify.${member}()`, 'list change lost')
  return {
    toolsChanged: listChanged('tools', 'toolsChanged'),
    promptsChanged: listChanged('prompts', 'promptsChanged'),
    resourcesChanged: listChanged('resources', 'resourcesChanged'),
    resourceUpdated: (uri: string) => {
      if (typeof uri !== 'string' || uri === '')
        throw new TypeError('handler.notify.resourceUpdated(uri): uri must be a non-empty string')
      return publish({ type: 'resourceUpdated', uri }, `handler.notify.resourceUpdated("${uri}")`, 'resource update lost')
    },
  }
}

/** SDK 2.x's change events, as its `ServerEventBus` carries them (one per notification method). */
export type ServerEvent = (
  | { kind: 'tools_list_changed' }
  | { kind: 'prompts_list_changed' }
  | { kind: 'resources_list_changed' }
  | { kind: 'resource_updated'; uri: string }
) & { params?: Record<string, unknown> }

/**
 * SDK 2.x's `handler.bus`. `publish` publishes as the matching `notify` member does (through the
 * event hub, to every isolate's listeners). `subscribe` hears what this isolate publishes on the bus
 * or through `notify`: SDK 2.x's listen streams subscribe to its bus, mcp-edge's to the event hub,
 * so a listener here sees no event published in another isolate.
 */
export interface ServerEventBus {
  /** Settles once the hub has the event (SDK 2.x's returns nothing): outside a request, hand it to `ctx.waitUntil`. */
  publish(event: ServerEvent): Promise<void>
  subscribe(listener: (event: ServerEvent) => void): () => void
}

/**
 * `handler.notify` and `handler.bus` over one notifier: each member is an event on the bus too.
 *
 * @example
 * const { notify, bus } = withBus(notifierOf(server, conventionalEvents))
 */
export function withBus(notifier: ServerNotifier): { notify: ServerNotifier; bus: ServerEventBus } {
  const listeners = new Set<(event: ServerEvent) => void>()
  const publish = (event: ServerEvent): Promise<void> => {
    switch (event.kind) {
      case 'tools_list_changed':
        return notifier.toolsChanged()
      case 'prompts_list_changed':
        return notifier.promptsChanged()
      case 'resources_list_changed':
        return notifier.resourcesChanged()
      case 'resource_updated':
        return notifier.resourceUpdated(event.uri)
      default:
        throw new TypeError(`handler.bus.publish: no event kind ${JSON.stringify((event as { kind?: unknown }).kind)}`)
    }
  }
  // Listeners hear an event once it is on its way: one refused (a bad kind or uri, no hub) is
  // thrown to the caller and heard by no one.
  const send = (event: ServerEvent): Promise<void> => {
    const sending = publish(event)
    for (const listener of listeners) {
      try {
        listener(event)
      } catch (error) {
        libraryLog.error('a handler.bus listener threw', errorFields(error))
      }
    }
    return sending
  }
  const bus: ServerEventBus = {
    // The promise, though SDK 2.x's returns nothing: code outside a request hands it to `ctx.waitUntil`.
    publish: send,
    subscribe(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
  }
  const notify: ServerNotifier = {
    toolsChanged: () => send({ kind: 'tools_list_changed' }),
    promptsChanged: () => send({ kind: 'prompts_list_changed' }),
    resourcesChanged: () => send({ kind: 'resources_list_changed' }),
    resourceUpdated: (uri) => send({ kind: 'resource_updated', uri }),
  }
  return { notify, bus }
}

/** What a server announces to its listeners (the server's `send*ListChanged`, `sendResourceUpdated`). */
export interface Announcements {
  listChanged(kind: ListKind): void
  resourceUpdated(uri: string): void
}

/** The list a `notifications/…/list_changed` method names. */
const LIST_CHANGED: Partial<Record<string, ListKind>> = {
  'notifications/tools/list_changed': 'tools',
  'notifications/resources/list_changed': 'resources',
  'notifications/prompts/list_changed': 'prompts',
}

/**
 * Tell `hooks` a list change or a resource update sent as a notification (what the SDKs'
 * `send*ListChanged` and `sendResourceUpdated` send); false for any other notification.
 */
export function announced(hooks: Announcements, { method, params }: { method: string; params?: object }): boolean {
  const kind = LIST_CHANGED[method]
  if (kind) hooks.listChanged(kind)
  else if (method === 'notifications/resources/updated') {
    const { uri } = (params ?? {}) as { uri?: unknown }
    if (typeof uri === 'string') hooks.resourceUpdated(uri)
  } else return false
  return true
}
