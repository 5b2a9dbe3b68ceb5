/**
 * The conformance suite's multi-round-trip tools and prompt (SEP-2322), written the SDK 2.x way:
 * a handler returns `inputRequired(...)` with keyed input requests (and a requestState sealed by
 * the server's codec), and reads the answers on the call that comes back with them.
 */
import { acceptedContent, inputRequired, inputResponse } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import type { CallToolResult, InputRequiredResult, McpServer, RequestStateCodec } from 'mcp-edge/sdk' // was: @modelcontextprotocol/server
import { z } from 'zod'

type Result = CallToolResult | InputRequiredResult
const none = z.object({})
const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] })
const nameSchema = z.object({ name: z.string() })
const confirmSchema = z.object({ ok: z.boolean() })
const askName = (message = 'What is your name?') => inputRequired.elicit({ message, requestedSchema: nameSchema })
const askConfirm = () => inputRequired.elicit({ message: 'Please confirm', requestedSchema: confirmSchema })
const sample = (prompt: string, maxTokens: number) =>
  inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens })

export function registerInputTools(server: McpServer, codec: RequestStateCodec<Record<string, unknown>>): void {
  server.registerTool(
    'test_input_required_result_elicitation',
    { description: 'Asks for the user name', inputSchema: none },
    async (_args, ctx): Promise<Result> => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'user_name')
      if (answer.kind === 'elicit' && answer.action !== 'accept')
        return { ...text(`Elicitation ${answer.action}`), isError: true }
      const named = acceptedContent(ctx.mcpReq.inputResponses, 'user_name', nameSchema)
      if (!named) return inputRequired({ inputRequests: { user_name: askName() } })
      return text(`Hello, ${named.name}!`)
    },
  )

  server.registerTool(
    'test_input_required_result_sampling',
    { description: 'Asks the client to sample', inputSchema: none },
    async (_args, ctx): Promise<Result> => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'capital_question')
      if (answer.kind !== 'sampling')
        return inputRequired({ inputRequests: { capital_question: sample('What is the capital of France?', 100) } })
      return text(`Sampled: ${JSON.stringify(answer.result.content)}`)
    },
  )

  server.registerTool(
    'test_input_required_result_list_roots',
    { description: 'Asks for the client roots', inputSchema: none },
    async (_args, ctx): Promise<Result> => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'client_roots')
      if (answer.kind !== 'roots') return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } })
      return text(`Roots: ${answer.roots.map((root) => root.uri).join(', ')}`)
    },
  )

  server.registerTool(
    'test_input_required_result_request_state',
    { description: 'Carries state across rounds', inputSchema: none },
    async (_args, ctx): Promise<Result> => {
      const state = ctx.mcpReq.requestState<{ marker: string }>()
      const confirmed = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', confirmSchema)
      if (!state || !confirmed) {
        return inputRequired({
          inputRequests: { confirm: askConfirm() },
          requestState: await codec.mint({ marker: 'state-ok' }, ctx),
        })
      }
      return text(`${state.marker} (confirmed: ${confirmed.ok})`)
    },
  )

  server.registerTool(
    'test_input_required_result_tampered_state',
    { description: 'Asks for confirmation; its state is sealed', inputSchema: none },
    async (_args, ctx): Promise<Result> => {
      const confirmed = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', confirmSchema)
      if (!ctx.mcpReq.requestState() || !confirmed) {
        return inputRequired({
          inputRequests: { confirm: askConfirm() },
          requestState: await codec.mint({ asked: 'confirm' }, ctx),
        })
      }
      return text(`confirmed: ${confirmed.ok}`)
    },
  )

  server.registerTool(
    'test_input_required_result_multiple_inputs',
    { description: 'Asks for three inputs at once', inputSchema: none },
    async (_args, ctx): Promise<Result> => {
      const responses = ctx.mcpReq.inputResponses
      const [name, greeting, roots] = [
        inputResponse(responses, 'user_name'),
        inputResponse(responses, 'greeting'),
        inputResponse(responses, 'client_roots'),
      ]
      if (name.kind !== 'elicit' || greeting.kind !== 'sampling' || roots.kind !== 'roots') {
        const inputRequests = {
          user_name: askName(),
          greeting: sample('Generate a greeting', 50),
          client_roots: inputRequired.listRoots(),
        }
        return inputRequired({ inputRequests, requestState: await codec.mint({ asked: 'three' }, ctx) })
      }
      const who = name.action === 'accept' ? String(name.content?.name) : 'nobody'
      return text(`name=${who} roots=${roots.roots.length} model=${greeting.result.model}`)
    },
  )

  server.registerTool(
    'test_input_required_result_multi_round',
    { description: 'Asks in two rounds', inputSchema: none },
    async (_args, ctx): Promise<Result> => {
      const state = ctx.mcpReq.requestState<{ name?: string }>()
      const step1 = acceptedContent(ctx.mcpReq.inputResponses, 'step1', nameSchema)
      const color = acceptedContent(ctx.mcpReq.inputResponses, 'step2', z.object({ color: z.string() }))
      if (state?.name !== undefined && color) return text(`${state.name} likes ${color.color}`)
      if (step1) {
        const step2 = inputRequired.elicit({
          message: 'Step 2: What is your favorite color?',
          requestedSchema: z.object({ color: z.string() }),
        })
        return inputRequired({ inputRequests: { step2 }, requestState: await codec.mint({ name: step1.name }, ctx) })
      }
      return inputRequired({
        inputRequests: { step1: askName('Step 1: What is your name?') },
        requestState: await codec.mint({}, ctx),
      })
    },
  )

  server.registerTool(
    'test_input_required_result_capabilities',
    { description: 'Asks only for what the client declared', inputSchema: none },
    async (_args, ctx): Promise<Result> => {
      const declared = (ctx.mcpReq._meta?.['io.modelcontextprotocol/clientCapabilities'] ?? {}) as Record<string, unknown>
      if (ctx.mcpReq.inputResponses) return text(`answered: ${Object.keys(ctx.mcpReq.inputResponses).join(', ')}`)
      const inputRequests = {
        ...(declared.elicitation ? { user_name: askName() } : {}),
        ...(declared.sampling ? { greeting: sample('Say hello', 20) } : {}),
        ...(declared.roots ? { client_roots: inputRequired.listRoots() } : {}),
      }
      if (Object.keys(inputRequests).length === 0) return { ...text('Declare elicitation, sampling or roots'), isError: true }
      return inputRequired({ inputRequests })
    },
  )

  server.registerPrompt(
    'test_input_required_result_prompt',
    { description: 'Asks for context before answering' },
    async (ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_context', z.object({ context: z.string() }))
      if (!answer) {
        const user_context = inputRequired.elicit({
          message: 'What context should the prompt use?',
          requestedSchema: z.object({ context: z.string() }),
        })
        return inputRequired({ inputRequests: { user_context } })
      }
      return { messages: [{ role: 'user', content: { type: 'text', text: `Use this context: ${answer.context}` } }] }
    },
  )
}
