/**
 * Each template's server.json is what `registryServerJson` builds from the template's own server,
 * imported from its Worker module here in workerd (where `cloudflare:workers` resolves; the
 * workers project gives the oauth template the MCP_PUBLIC_URL it reads at start-up): its
 * identity's title, version and website; its description (at most 100 characters, as the registry
 * asks); the name and URL placeholders the template's README tells users to replace; and the
 * bearer token's header where the template asks for one. test/unit/registry.test.ts
 * validates the files against the registry's schema and their versions against package.json.
 */
import { describe, expect, it } from 'vitest'
import { registryServerJson } from 'mcp-edge'
import type { McpServer, RegistryHeader } from 'mcp-edge'

// A literal placeholder for the publisher to replace, not a `{variable}`: the registry's remote
// variables are values every user of a listed server is asked for (its remote-servers guide).
const URL_PLACEHOLDER = 'https://<your-worker>.<your-subdomain>.workers.dev/mcp'
const BEARER: RegistryHeader = {
  name: 'Authorization',
  description: 'Bearer <token>: the token set with wrangler secret put MCP_BEARER_TOKEN',
  isRequired: true,
  isSecret: true,
}
const TEMPLATES: [string, RegistryHeader[] | undefined][] = [
  ['minimal', [BEARER]],
  ['durable', [BEARER]],
  ['oauth', undefined],
]

describe("the templates' server.json", () => {
  it.each(TEMPLATES)('templates/%s/server.json is built from its server', async (template, headers) => {
    // Paths the type checker does not follow: each template is a program of its own, with its own Env.
    const { server } = (await import(`../../templates/${template}/src/index.ts`)) as { server: McpServer }
    const file = (await import(`../../templates/${template}/server.json`)).default
    const options = { name: `io.github.your-username/${server.info.name}`, url: URL_PLACEHOLDER }
    expect(file).toEqual(registryServerJson(server, headers ? { ...options, headers } : options))
  })
})
