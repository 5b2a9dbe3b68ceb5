/**
 * What both lanes of the endpoint get from the entry handler once a request has passed the
 * transport guards, authentication and body parsing: the request, who sent it, the Worker env
 * and its services, and how to answer.
 */
import type { McpServices } from '../server/dispatch.ts'
import type { Principal } from '../server/types.ts'
import type { RespondOptions } from './respond.ts'

export interface Lane<Env> {
  request: Request
  env: Env
  principal: Principal | undefined
  services: McpServices
  respond: RespondOptions
}
