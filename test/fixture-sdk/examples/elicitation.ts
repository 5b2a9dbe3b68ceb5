/**
 * The SDK 2.x repository's elicitation example (`examples/elicitation/server.ts` of
 * modelcontextprotocol/typescript-sdk), written again the same way: one factory that reads the
 * request's era (`McpRequestContext`) and asks 2025-era clients push-style
 * (`ctx.mcpReq.elicitInput`, form and URL mode, `createElicitationCompletionNotifier`,
 * `UrlElicitationRequiredError`) and 2026-07-28 clients with `inputRequired(...)` rounds (a
 * `requestState` string carrying the first answer of a chained form). Its Node wiring (a sessionful
 * transport for 2025, the stateless handler for 2026, host and origin guards) becomes one
 * `createMcpHandler(buildServer)`, which serves both eras; worker.ts hands it every request but
 * those of /simple. Test-only
 * (test/http/sdk-examples.test.ts).
 */
import type { CallToolResult, ElicitRequestFormParams, ElicitRequestURLParams } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import type { InputRequiredResult, McpRequestContext } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import { acceptedContent, createMcpHandler, inputRequired, McpServer, UrlElicitationRequiredError } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import * as z from 'zod/v4'

const REGISTRATION: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    username: { type: 'string', title: 'Username', minLength: 3, maxLength: 20 },
    email: { type: 'string', title: 'Email', format: 'email' },
    plan: { type: 'string', title: 'Plan', enum: ['free', 'pro', 'team'], enumNames: ['Free tier', 'Pro', 'Team'] },
  },
  required: ['username', 'email'],
}
const DESTINATION: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: { destination: { type: 'string', title: 'Destination' } },
  required: ['destination'],
}
const datesFor = (destination: string): ElicitRequestFormParams['requestedSchema'] => ({
  type: 'object',
  properties: {
    departure: { type: 'string', title: `Departure date for ${destination}`, format: 'date' },
    nights: { type: 'integer', title: 'Nights', minimum: 1, maximum: 30 },
  },
  required: ['departure', 'nights'],
})

type Registration = { username: string; email: string; plan?: string }
const say = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] })
const registered = ({ username, email, plan }: Registration) => say(`registered ${username} <${email}> (plan: ${plan ?? 'free'})`)

function registerForms(server: McpServer, reqCtx: McpRequestContext): void {
  server.registerTool(
    'register_user',
    { description: 'Register a new user account by collecting their information' },
    async (ctx): Promise<CallToolResult | InputRequiredResult> => {
      const message = 'Please provide your registration information:'
      if (reqCtx.era === 'legacy') {
        const result = await ctx.mcpReq.elicitInput({ mode: 'form', message, requestedSchema: REGISTRATION })
        if (result.action !== 'accept' || !result.content) return say(`registration ${result.action}`)
        return registered(result.content as Registration)
      }
      const response = ctx.mcpReq.inputResponses?.form as { action?: string } | undefined
      if (!response) {
        return inputRequired({ inputRequests: { form: inputRequired.elicit({ message, requestedSchema: REGISTRATION }) } })
      }
      const form = acceptedContent<Registration>(ctx.mcpReq.inputResponses, 'form')
      return form ? registered(form) : say(`registration ${response.action}`)
    },
  )

  server.registerTool(
    'plan_trip',
    { description: 'Plan a trip by collecting a destination and then dates for that destination' },
    async (ctx): Promise<CallToolResult | InputRequiredResult> => {
      if (reqCtx.era === 'legacy') {
        const step1 = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'Where to?', requestedSchema: DESTINATION })
        if (step1.action !== 'accept' || !step1.content) return say(`trip ${step1.action}`)
        const destination = step1.content.destination as string
        const step2 = await ctx.mcpReq.elicitInput({ mode: 'form', message: 'When?', requestedSchema: datesFor(destination) })
        if (step2.action !== 'accept' || !step2.content) return say(`trip ${step2.action}`)
        return say(`trip planned: ${destination} on ${step2.content.departure} for ${step2.content.nights} nights`)
      }
      const dates = acceptedContent<{ departure: string; nights: number }>(ctx.mcpReq.inputResponses, 'dates')
      const destination =
        ctx.mcpReq.requestState<string>() ??
        acceptedContent<{ destination: string }>(ctx.mcpReq.inputResponses, 'dest')?.destination
      if (!destination) {
        return inputRequired({
          inputRequests: { dest: inputRequired.elicit({ message: 'Where to?', requestedSchema: DESTINATION }) },
        })
      }
      if (!dates) {
        return inputRequired({
          requestState: destination,
          inputRequests: { dates: inputRequired.elicit({ message: 'When?', requestedSchema: datesFor(destination) }) },
        })
      }
      return say(`trip planned: ${destination} on ${dates.departure} for ${dates.nights} nights`)
    },
  )
}

function registerUrls(server: McpServer, reqCtx: McpRequestContext): void {
  server.registerTool(
    'link_account',
    { description: 'Link a third-party account by opening a sign-in URL', inputSchema: z.object({ provider: z.string() }) },
    async ({ provider }, ctx): Promise<CallToolResult | InputRequiredResult> => {
      const message = `Sign in to ${provider} to link your account`
      const url = `https://example.com/oauth/${encodeURIComponent(provider)}/authorize`
      if (reqCtx.era === 'legacy') {
        const elicitationId = crypto.randomUUID()
        const notifyComplete = server.server.createElicitationCompletionNotifier(elicitationId, {
          relatedRequestId: ctx.mcpReq.id,
        })
        setTimeout(() => void notifyComplete().catch((error) => console.error('complete notify failed:', error)), 50)
        const params: ElicitRequestURLParams = { mode: 'url', message, url, elicitationId }
        const result = await ctx.mcpReq.elicitInput(params)
        return say(result.action === 'accept' ? `linked ${provider}` : `link ${result.action}`)
      }
      const auth = ctx.mcpReq.inputResponses?.auth as { action?: string } | undefined
      if (auth?.action !== 'accept') {
        return inputRequired({ inputRequests: { auth: inputRequired.elicitUrl({ message, url }) } })
      }
      return say(`linked ${provider}`)
    },
  )

  server.registerTool(
    'confirm_payment',
    {
      description: 'Confirm a payment via a browser flow (2025-era throw-style URL elicitation)',
      inputSchema: z.object({ cartId: z.string() }),
    },
    async ({ cartId }): Promise<CallToolResult> => {
      throw new UrlElicitationRequiredError([
        {
          mode: 'url',
          message: 'Open the link to confirm payment',
          url: `https://example.com/confirm-payment?cart=${encodeURIComponent(cartId)}`,
          elicitationId: crypto.randomUUID(),
        },
      ])
    },
  )
}

export function buildServer(reqCtx: McpRequestContext): McpServer {
  const server = new McpServer({ name: 'elicitation-example', version: '1.0.0' })
  registerForms(server, reqCtx)
  registerUrls(server, reqCtx)
  return server
}

/** Both eras: mcp-edge asks 2025-era clients on the call's stream, without a session transport. */
export const elicitationHandler = createMcpHandler(buildServer)
