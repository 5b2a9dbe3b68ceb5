/**
 * The MCP registry's `server.json`: what `registryServerJson` builds from a server's identity is
 * valid by the registry's published schema (2025-12-11, vendored in test/conformance/registry
 * with its source and date); options the registry would refuse throw, saying what to set; and each
 * template's server.json is valid and carries its package.json's version. That each template's
 * file is what the helper builds from the template's own server is test/workers/registry.test.ts:
 * the template Workers import `cloudflare:workers`, which only workerd has.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { Ajv } from 'ajv'
import { describe, expect, it } from 'vitest'
import { registryServerJson } from '../../packages/mcp-edge/src/http/discovery/server-json.ts'
import { createMcpServer } from '../../packages/mcp-edge/src/server/server.ts'

const json = (path: string) => JSON.parse(readFileSync(resolve(import.meta.dirname, '../..', path), 'utf8'))
const schema = json('test/conformance/registry/server.schema.json')
// Draft-07, as the schema says. A `uri` is an absolute URL (ajv alone checks no format).
const validate = new Ajv({ strict: false, allErrors: true })
  .addFormat('uri', (value: string) => URL.canParse(value))
  .compile(schema)
const valid = (document: unknown) => [validate(document), JSON.stringify(validate.errors)] as const

const HTTPS_ICON = { src: 'https://notes.example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }
const DATA_ICON = { src: 'data:image/svg+xml;base64,PHN2Zy8+', mimeType: 'image/svg+xml', sizes: ['any'] }
const BEARER = { name: 'Authorization', description: 'Bearer <token>', isRequired: true, isSecret: true }

function notes(description?: string) {
  return createMcpServer({
    name: 'notes',
    version: '1.2.0',
    title: 'Notes',
    websiteUrl: 'https://notes.example.com',
    icons: [HTTPS_ICON, DATA_ICON],
    ...(description === undefined ? {} : { description }),
  })
}
const OPTIONS = { name: 'io.github.you/notes', url: 'https://notes.you.workers.dev/mcp' }

describe('registryServerJson', () => {
  it("builds server.json from the server's identity, valid by the registry schema", () => {
    const document = registryServerJson(notes('Notes you can add, list and search'), {
      ...OPTIONS,
      repository: { url: 'https://github.com/you/notes', source: 'github' },
      headers: [BEARER],
    })
    expect(document).toEqual({
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
      name: 'io.github.you/notes',
      title: 'Notes',
      description: 'Notes you can add, list and search',
      version: '1.2.0',
      websiteUrl: 'https://notes.example.com',
      // The registry takes https: icons only: the data: one stays out.
      icons: [HTTPS_ICON],
      repository: { url: 'https://github.com/you/notes', source: 'github' },
      remotes: [{ type: 'streamable-http', url: 'https://notes.you.workers.dev/mcp', headers: [BEARER] }],
    })
    expect(document.$schema).toBe(schema.$id)
    expect(...valid(document)).toBe(true)
  })

  it('takes the description option over the server, and leaves out what the server lacks', () => {
    const bare = createMcpServer({ name: 'notes', version: '1.0.0', icons: [DATA_ICON] })
    const document = registryServerJson(bare, { ...OPTIONS, description: 'Notes' })
    expect(document).toEqual({
      $schema: schema.$id,
      name: 'io.github.you/notes',
      description: 'Notes',
      version: '1.0.0',
      remotes: [{ type: 'streamable-http', url: 'https://notes.you.workers.dev/mcp' }],
    })
    expect(...valid(document)).toBe(true)
  })

  it('refuses what the registry would refuse, saying what to set', () => {
    const server = notes('Notes')
    expect(() => registryServerJson(server, { ...OPTIONS, name: 'notes' })).toThrow(
      'registryServerJson: name must be reverse-DNS with one slash, such as com.example/weather, not "notes"',
    )
    expect(() => registryServerJson(server, { ...OPTIONS, name: `io.github.you/${'n'.repeat(200)}` })).toThrow(
      'registryServerJson: name must be reverse-DNS',
    )
    expect(() => registryServerJson(notes(), OPTIONS)).toThrow(
      "registryServerJson: a description of 1 to 100 characters is required (its description option, or the server's description)",
    )
    expect(() => registryServerJson(server, { ...OPTIONS, description: 'x'.repeat(101) })).toThrow('1 to 100 characters')
    for (const url of [
      'http://notes.example.com/mcp',
      'notes.example.com/mcp',
      'https://notes example.com/mcp',
      'https:///mcp',
    ]) {
      expect(() => registryServerJson(server, { ...OPTIONS, url }), url).toThrow(
        `registryServerJson: url must be the deployed endpoint's https: URL, such as https://notes.example.workers.dev/mcp, not "${url}"`,
      )
    }
    // The schema refuses the same names and descriptions.
    const document = registryServerJson(server, OPTIONS)
    expect(validate({ ...document, name: 'notes' })).toBe(false)
    expect(validate({ ...document, description: 'x'.repeat(101) })).toBe(false)
    expect(validate({ ...document, remotes: [{ type: 'streamable-http', url: 'notes.example.com/mcp' }] })).toBe(false)
  })
})

describe("the templates' server.json", () => {
  it.each(['minimal', 'durable', 'oauth'])(
    "templates/%s/server.json is valid by the registry schema and has its package.json's version",
    (template) => {
      const document = json(`templates/${template}/server.json`)
      expect(...valid(document)).toBe(true)
      expect(document.$schema).toBe(schema.$id)
      expect(document.version).toBe(json(`templates/${template}/package.json`).version)
    },
  )
})
