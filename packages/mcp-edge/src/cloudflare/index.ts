/**
 * mcp-edge on Cloudflare: the Durable Object classes (task objects, the nonce ledger, the input
 * relay and the session ledger of 2025-era clients, the event hub), the services that bind them and the state keys from
 * the Worker environment, and the event hub that carries notifications to every isolate.
 *
 * @example
 * export const { McpTaskObject, McpNonceLedger, McpInputRelay, McpEventHub } = createDurableObjects(server)
 * app.route('/mcp', mcp(server, { services: cloudflareServices({ stateKeys: 'MCP_STATE_KEYS', tasks: 'MCP_TASKS' }) }))
 */
import type { McpServices } from '../server/dispatch.ts'
import { ConfigurationError } from '../server/errors.ts'
import { openSessionStream } from '../server/legacy/session-stream.ts'
import { createKeyRing, RequestStateCodec } from '../server/request-state.ts'
import type { RequestStateOptions } from '../server/request-state.ts'
import type { McpServer } from '../server/server.ts'
import { durableInputRelay, McpInputRelay } from './input-relay.ts'
import { analyticsEngine, analyticsEngineExporter } from './analytics.ts'
import { McpEventHub } from './event-hub.ts'
import { cloudflareEventHub, HUB_CAPACITY } from './events.ts'
import { sharedHubSockets } from './shared-sockets.ts'
import { durableNonces, McpNonceLedger } from './nonce-ledger.ts'
import { cloudflareResults, McpResultStore, r2Results } from './result-store.ts'
import { durableSessions, McpSessionLedger } from './session-ledger.ts'
import { durableTasks } from './task-backend.ts'
import { createTaskObjectClass } from './task-object.ts'
import { workersTracing } from './tracing.ts'

export interface CloudflareServicesConfig {
  /** Name of the secret holding the requestState key ring (for example `MCP_STATE_KEYS`). */
  stateKeys?: string
  /** Options of the requestState codec (expiry, AES-GCM). */
  requestState?: RequestStateOptions
  /** Name of the Durable Object binding of the task objects. */
  tasks?: string
  /** Name of the Durable Object binding of the nonce ledger. */
  nonces?: string
  /**
   * Name of the Durable Object binding of the input relay, which routes a 2025-era client's
   * answers to server-to-client requests to the isolate holding the call. Without it the relay
   * works within one isolate only.
   */
  inputRelay?: string
  /**
   * Name of the Durable Object binding of the session ledger: 2025-era sessions end on DELETE and
   * keep their `logging/setLevel`, on every isolate, and (with an event hub) have a GET stream.
   * Without it DELETE and GET are 405.
   */
  sessions?: string
}

/** Build `McpServices` from the Worker env by binding name. Missing bindings fail loudly. */
export function cloudflareServices<Env>(config: CloudflareServicesConfig): (env: Env) => McpServices {
  return (env) => {
    const bindings = env as Record<string, unknown>
    const binding = (name: string) => {
      const value = bindings[name]
      if (!value) throw new ConfigurationError(`Binding ${name} is missing: add it to wrangler.jsonc (docs/deploy.md)`)
      return value as DurableObjectNamespace
    }
    const services: McpServices = {}
    if (config.stateKeys) {
      const ring = createKeyRing(bindings[config.stateKeys] as string | undefined, config.stateKeys)
      services.requestState = new RequestStateCodec(ring, config.requestState)
    }
    if (config.tasks) services.tasks = durableTasks(binding(config.tasks))
    if (config.nonces)
      services.nonces = durableNonces(binding(config.nonces) as unknown as DurableObjectNamespace<McpNonceLedger>)
    if (config.inputRelay)
      services.inputRelay = durableInputRelay(binding(config.inputRelay) as unknown as DurableObjectNamespace<McpInputRelay>)
    if (config.sessions) {
      services.sessions = durableSessions(binding(config.sessions) as unknown as DurableObjectNamespace<McpSessionLedger>)
      // Sessions' GET streams come with the ledger (they also need an event hub on the server).
      services.sessionStreams = openSessionStream
    }
    return services
  }
}

/** The Durable Object classes of a server, to export from the Worker module. */
export function createDurableObjects<Env>(server: McpServer<Env>) {
  return {
    McpTaskObject: createTaskObjectClass(server),
    McpNonceLedger,
    McpInputRelay,
    McpEventHub,
    McpSessionLedger,
    McpResultStore,
  }
}

export {
  analyticsEngine,
  analyticsEngineExporter,
  cloudflareEventHub,
  HUB_CAPACITY,
  cloudflareResults,
  createTaskObjectClass,
  durableInputRelay,
  durableNonces,
  durableSessions,
  durableTasks,
  McpEventHub,
  McpInputRelay,
  McpNonceLedger,
  McpResultStore,
  McpSessionLedger,
  r2Results,
  sharedHubSockets,
  workersTracing,
}
export type { AnalyticsEngineOptions, DataPointWriter } from './analytics.ts'
export type { EventHubRpc } from './event-hub.ts'
export type { EventHubOptions } from './events.ts'
export type { HubSocketSharing } from './hub-listener.ts'
export type { EventLogOptions } from '../server/events/event-log.ts'
export type { ResultStoreOptions } from './result-store.ts'
export type { TaskObjectRpc } from './task-object.ts'
