/**
 * The official 2026-07-28 JSON Schema as a referee: validate what the server sends against the
 * schema's own definitions (a copy of the specification's schema.json, in test/conformance/).
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'

const schema = JSON.parse(readFileSync(resolve(import.meta.dirname, '../conformance/schema-2026-07-28.json'), 'utf8'))
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
ajv.addSchema(schema, 'mcp')

/** Errors of `value` against definition `name` (for example `ContentBlock`), or an empty list. */
export function schemaErrors(name: string, value: unknown): string[] {
  const validate = ajv.getSchema(`mcp#/$defs/${name}`)
  if (!validate) throw new Error(`No definition ${name} in the 2026-07-28 schema`)
  return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`)
}
