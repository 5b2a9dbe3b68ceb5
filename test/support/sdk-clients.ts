/**
 * The official TypeScript clients as the HTTP tests drive them, at their defaults but for what the
 * test needs declared: the SDK 1.x client (it negotiates the 2025 era) and the 2.x client pinned to
 * 2026-07-28, each declaring form elicitation and answering every question with `answer`, which
 * sees what was asked.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'

/** What a test's client answers a question with, given the question's params. */
export type Answer = (params: unknown) => unknown

/** The SDK 1.x client, connected to `url`, and its transport (which says the negotiated version). */
export async function answeringClientV1(url: URL, answer: Answer) {
  const client = new Client({ name: 'sdk-1x', version: '1.0.0' }, { capabilities: { elicitation: {} } })
  client.setRequestHandler(ElicitRequestSchema, async (request) => answer(request.params) as never)
  const transport = new StreamableHTTPClientTransport(url)
  await client.connect(transport)
  return { client, transport }
}

/** The SDK 2.x client pinned to 2026-07-28, connected to `url`. */
export async function answeringClientV2(url: URL, answer: Answer): Promise<ClientV2> {
  const client = new ClientV2(
    { name: 'client-2x', version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  )
  client.setRequestHandler('elicitation/create', async (request) => answer(request.params) as never)
  await client.connect(new TransportV2(url))
  return client
}

/** An answer that keeps each question in `asked` and gives `value`. */
export const answerWith =
  (value: unknown, asked: unknown[]): Answer =>
  (params) => {
    asked.push(params)
    return value
  }
