/**
 * `ResourceTemplate` as the SDKs write it: an RFC 6570 URI template with an optional `list`
 * callback (the resources it stands for, in `resources/list`) and `complete` callbacks for its
 * variables (`completion/complete`).
 */
import type { Resource } from '../protocol/types.ts'
import type { RequestHandlerExtra } from './context.ts'
import type { CompleteCallback } from './schema/schema.ts'

/** What a template's `list` callback returns (SDK `ListResourcesResult`). */
export interface ListResourcesResult {
  resources: Resource[]
  nextCursor?: string
  _meta?: Record<string, unknown>
}

export type ListResourcesCallback = (extra: RequestHandlerExtra) => ListResourcesResult | Promise<ListResourcesResult>

export interface ResourceTemplateCallbacks {
  /** The resources the template stands for; `undefined` when they cannot be listed. */
  list: ListResourcesCallback | undefined
  complete?: Record<string, CompleteCallback>
}

/**
 * @example
 * new ResourceTemplate('users://{id}/profile', { list: undefined, complete: { id: (v) => ids.filter((id) => id.startsWith(v)) } })
 */
export class ResourceTemplate {
  readonly uriTemplate: string
  readonly #callbacks: ResourceTemplateCallbacks

  constructor(uriTemplate: string, callbacks: ResourceTemplateCallbacks) {
    this.uriTemplate = uriTemplate
    this.#callbacks = callbacks
  }

  get listCallback(): ListResourcesCallback | undefined {
    return this.#callbacks.list
  }

  completeCallback(variable: string): CompleteCallback | undefined {
    return this.#callbacks.complete?.[variable]
  }

  get completeCallbacks(): Record<string, CompleteCallback> {
    return { ...this.#callbacks.complete }
  }
}
