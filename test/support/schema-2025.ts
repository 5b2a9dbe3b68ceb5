/**
 * The official 2025 JSON Schemas as referees of the legacy lane (copies in
 * test/conformance/schema-2025/, source noted there). Two checks per message: the schema as
 * published (types, required fields, enums), and a strict reading of it in which the objects the
 * server builds (results, tools, resources, prompts, content blocks, capabilities) may carry only
 * the properties that revision defines, so a field from a later revision is caught too.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { Ajv } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'

export type LegacyRevision = '2025-03-26' | '2025-06-18' | '2025-11-25'

/** Objects the server builds itself; their open parts (`_meta`, schemas, experimental) stay open. */
const CLOSED = [
  'InitializeResult',
  'Implementation',
  'ServerCapabilities',
  'ListToolsResult',
  'Tool',
  'ToolAnnotations',
  'CallToolResult',
  'ListResourcesResult',
  'ListResourceTemplatesResult',
  'Resource',
  'ResourceTemplate',
  'ReadResourceResult',
  'TextResourceContents',
  'BlobResourceContents',
  'ListPromptsResult',
  'Prompt',
  'PromptArgument',
  'GetPromptResult',
  'PromptMessage',
  'CompleteResult',
  'TextContent',
  'ImageContent',
  'AudioContent',
  'EmbeddedResource',
  'ResourceLink',
  'Annotations',
]

function load(revision: LegacyRevision, strict: boolean) {
  const schema = JSON.parse(readFileSync(resolve(import.meta.dirname, `../conformance/schema-2025/${revision}.json`), 'utf8'))
  const definitions = (schema.$defs ?? schema.definitions) as Record<
    string,
    { properties?: object; additionalProperties?: unknown }
  >
  if (strict) {
    for (const name of CLOSED) {
      const definition = definitions[name]
      if (definition?.properties && definition.additionalProperties === undefined) definition.additionalProperties = false
    }
  }
  const ajv =
    revision === '2025-11-25' ? new Ajv2020({ strict: false, allErrors: true }) : new Ajv({ strict: false, allErrors: true })
  ajv
    .addFormat('uri', true)
    .addFormat('byte', true)
    .addFormat('uri-template', true)
    .addFormat('email', true)
    .addFormat('date', true)
    .addFormat('date-time', true)
  ajv.addSchema(schema, 'mcp')
  return { ajv, pointer: schema.$defs ? '$defs' : 'definitions', names: new Set(Object.keys(definitions)) }
}

const cache = new Map<string, ReturnType<typeof load>>()

/**
 * Errors of `value` against definition `name` of `revision`'s schema, published and strict.
 *
 * @example
 * expect(legacySchemaErrors('2025-06-18', 'ListToolsResult', result)).toEqual([])
 */
export function legacySchemaErrors(revision: LegacyRevision, name: string, value: unknown): string[] {
  const errors: string[] = []
  for (const strict of [false, true]) {
    const key = `${revision}/${strict}`
    let loaded = cache.get(key)
    if (!loaded) {
      loaded = load(revision, strict)
      cache.set(key, loaded)
    }
    if (!loaded.names.has(name)) throw new Error(`No definition ${name} in the ${revision} schema`)
    const validate = loaded.ajv.getSchema(`mcp#/${loaded.pointer}/${name}`)
    // A definition Ajv cannot compile must fail the test, not validate everything.
    if (!validate) throw new Error(`Ajv has no validator for ${name} in the ${revision} schema${strict ? ' (strict)' : ''}`)
    if (!validate(value)) {
      for (const error of validate.errors ?? []) {
        errors.push(`${strict ? 'strict ' : ''}${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`)
      }
    }
  }
  return errors
}
