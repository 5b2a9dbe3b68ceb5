/**
 * Events on their way to listen streams, traced (docs/observability.md, "Events"): a PRODUCER
 * span `publish {notification}` where an event is published, and a CONSUMER span
 * `deliver {notification}` where a listen stream sends it, in whichever isolate holds the stream.
 * The publish span's context travels with the event (a W3C `traceparent`, through the event
 * hub's Durable Object too), so each delivery is its child: one trace shows an event and every
 * listener it reached. A delivery also links to its listen request's span.
 *
 * A publish span is a trace of its own: `notifyResourceUpdated` is called from anywhere (a tool,
 * a `scheduled` handler, another Worker), and nothing carries the caller's span to it. Neither
 * function throws: telemetry never changes what is delivered.
 */
import { NOTIFICATION } from '../../protocol/constants.ts'
import type { RequestId } from '../../protocol/jsonrpc.ts'
import type { McpEvent } from '../events/events.ts'
import { ATTR } from './conventions.ts'
import type { Log } from './log.ts'
import { formatTraceparent, parseTraceparent } from './trace-context.ts'
import type { Attributes, Telemetry, TelemetrySpan } from './tracer.ts'

const NOOP = () => {}

/** The notification an event becomes. */
export function eventMethod(event: McpEvent): string {
  if (event.type === 'listChanged') return `notifications/${event.list}/list_changed`
  if (event.type === 'log') return NOTIFICATION.message
  return event.type === 'resourceUpdated' ? NOTIFICATION.resourceUpdated : NOTIFICATION.tasks
}

function eventAttributes(event: McpEvent): Attributes {
  const attributes: Attributes = { [ATTR.method]: eventMethod(event), [ATTR.eventType]: event.type }
  if (event.type === 'resourceUpdated') attributes[ATTR.resourceUri] = event.uri
  if (event.type === 'task') attributes[ATTR.taskId] = event.taskId
  return attributes
}

export interface Publishing {
  /** The event to send: the given one with the publish span's context. */
  readonly event: McpEvent
  /** It was handed over: `listeners` is how many the hub reached, when it says; or it failed. */
  end(outcome: { listeners?: number | undefined } | { error: unknown }): void
}

/** Start the publish span of `event`; `undefined` without telemetry (or if telemetry failed, logged). */
export function startPublish(telemetry: Telemetry | undefined, event: McpEvent, log: Log): Publishing | undefined {
  if (!telemetry) return undefined
  try {
    const span = telemetry.startSpan(`publish ${eventMethod(event)}`, { kind: 'producer', attributes: eventAttributes(event) })
    return {
      event: { ...event, traceparent: formatTraceparent(span.context) },
      end(outcome) {
        try {
          if ('error' in outcome) span.fail(outcome.error instanceof Error ? outcome.error.name : 'Error', String(outcome.error))
          else span.setAttribute(ATTR.eventListeners, outcome.listeners)
          span.end()
          telemetry.flush().catch(NOOP)
        } catch (error) {
          log.error('telemetry failed; the event went on without it', { error: String(error) })
        }
      },
    }
  } catch (error) {
    log.error('telemetry failed; the event went on without it', { error: String(error) })
    return undefined
  }
}

/**
 * What a listen stream calls as it sends each event: the delivery span, from when the event
 * reached the listener to now. `undefined` without telemetry.
 */
export function traceDeliveries(
  telemetry: Telemetry | undefined,
  listen: TelemetrySpan | undefined,
  subscriptionId: RequestId,
  log: Log,
): ((event: McpEvent, queuedAt: number) => void) | undefined {
  if (!telemetry) return undefined
  const links = listen ? [{ context: listen.context, attributes: { [ATTR.linkKind]: 'listen' } }] : undefined
  let warned = false
  return (event, queuedAt) => {
    try {
      const attributes = eventAttributes(event)
      attributes[ATTR.subscriptionId] = String(subscriptionId)
      const span = telemetry.startSpan(`deliver ${eventMethod(event)}`, {
        kind: 'consumer',
        parent: parseTraceparent(event.traceparent),
        links,
        attributes,
        startMs: queuedAt,
      })
      span.end()
      telemetry.flush().catch(NOOP)
    } catch (error) {
      if (warned) return
      warned = true
      log.error('telemetry failed; the listen stream went on without it', { error: String(error) })
    }
  }
}
