/**
 * Bench Worker, a start-up reference: the bare Hono floor (hono.ts) plus five empty SQLite
 * Durable Object classes bound as the template binds its own. It shows what declaring Durable
 * Objects costs workerd at start-up before any of the template's code runs.
 *
 * JavaScript for the reason given in extras.js (`cloudflare:workers` under Node's types).
 */
import { DurableObject } from 'cloudflare:workers'
import app from '../hono/worker.ts'

export class McpTaskObject extends DurableObject {}
export class McpNonceLedger extends DurableObject {}
export class McpInputRelay extends DurableObject {}
export class McpEventHub extends DurableObject {}
export class NotesStore extends DurableObject {}

export default app
