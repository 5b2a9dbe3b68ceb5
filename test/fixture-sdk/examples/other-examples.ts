/**
 * Two more of the SDK 1.x repository's example servers (v1.x branch, src/examples/server/), their
 * tools registered on fixture (f)'s server: `get_weather` of `mcpServerOutputSchema.ts` (a nested
 * zod `outputSchema`, `structuredContent` beside its JSON text) and `summarize` of
 * `toolWithSampleServer.ts` (an LLM call through `server.server.createMessage`). Their stdio
 * transports are left out: the Worker serves the server. Test-only (test/http/sdk-examples.test.ts).
 */
import type { McpServer } from 'mcp-edge/sdk' // was: @modelcontextprotocol/sdk/server/mcp.js
import * as z from 'zod/v4'

const CONDITIONS = ['sunny', 'cloudy', 'rainy', 'stormy', 'snowy']
const DIRECTIONS = ['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW']
const pick = <T>(values: T[]): T => values[Math.floor(Math.random() * values.length)] as T

export function registerOtherExamples(server: McpServer): void {
  server.registerTool(
    'get_weather',
    {
      description: 'Get weather information for a city',
      inputSchema: { city: z.string().describe('City name'), country: z.string().describe('Country code (e.g., US, UK)') },
      outputSchema: {
        temperature: z.object({ celsius: z.number(), fahrenheit: z.number() }),
        conditions: z.enum(['sunny', 'cloudy', 'rainy', 'stormy', 'snowy']),
        humidity: z.number().min(0).max(100),
        wind: z.object({ speed_kmh: z.number(), direction: z.string() }),
      },
    },
    async ({ city, country }) => {
      void city
      void country
      const celsius = Math.round((Math.random() * 35 - 5) * 10) / 10
      const structuredContent = {
        temperature: { celsius, fahrenheit: Math.round(((celsius * 9) / 5 + 32) * 10) / 10 },
        conditions: pick(CONDITIONS),
        humidity: Math.round(Math.random() * 100),
        wind: { speed_kmh: Math.round(Math.random() * 50), direction: pick(DIRECTIONS) },
      }
      return { content: [{ type: 'text', text: JSON.stringify(structuredContent, null, 2) }], structuredContent }
    },
  )

  server.registerTool(
    'summarize',
    { description: 'Summarize any text using an LLM', inputSchema: { text: z.string().describe('Text to summarize') } },
    async ({ text }) => {
      const response = await server.server.createMessage({
        messages: [
          { role: 'user', content: { type: 'text', text: `Please summarize the following text concisely:\n\n${text}` } },
        ],
        maxTokens: 500,
      })
      return {
        content: [
          { type: 'text', text: response.content.type === 'text' ? response.content.text : 'Unable to generate summary' },
        ],
      }
    },
  )
}
