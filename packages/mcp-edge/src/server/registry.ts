/**
 * Registered resources, resource templates and prompts as the runtime keeps them (tools:
 * tool-entry.ts): each definition's wire JSON is computed once, so a request only looks things up.
 * Registration errors are configuration errors and throw at start-up (registration.ts checks
 * what JavaScript callers can get wrong); a prompt's arguments, which come from its zod schema,
 * are converted on first use instead (a `prompts/list` page that holds it, or a `prompts/get`),
 * as a tool's schemas are, and a schema with no JSON Schema fails every use naming the prompt,
 * logged once; lists leave the prompt out.
 */
import type { Prompt, PromptArgument, Resource, ResourceTemplate } from '../protocol/types.ts'
import { checkArguments, checkCallbacks, checkPromptArgs, checkResourceName } from './registration.ts'
import { Derived } from './schema/derived.ts'
import { toJsonSchema } from './schema/schema.ts'
import type { JsonSchema, JsonSchemaConverter, ObjectSchema } from './schema/schema.ts'
import type {
  CacheHint,
  Completer,
  PromptHandler,
  PromptOptions,
  ResourceHandler,
  ResourceOptions,
  ResourceTemplateHandler,
  ResourceTemplateOptions,
  Visibility,
} from './types.ts'
import { compileUriTemplate } from './uri-template.ts'
import type { UriTemplate } from './uri-template.ts'

export interface ResourceEntry<Env = unknown> {
  definition: Resource
  scopes: readonly string[]
  visible: Visibility<Env> | undefined
  cache: CacheHint | undefined
  handler: ResourceHandler<Env>
}

export interface TemplateEntry<Env = unknown> {
  definition: ResourceTemplate
  template: UriTemplate
  scopes: readonly string[]
  visible: Visibility<Env> | undefined
  cache: CacheHint | undefined
  complete: Record<string, Completer<Env>>
  list: ResourceTemplateOptions<Env>['list']
  handler: ResourceTemplateHandler<Env>
}

export interface PromptEntry<Env = unknown> {
  definition: Prompt
  args: ObjectSchema | undefined
  scopes: readonly string[]
  visible: Visibility<Env> | undefined
  required: string[]
  complete: Record<string, Completer<Env>>
  handler: PromptHandler<ObjectSchema | undefined, Env>
}

export function buildResourceEntry<Env>(
  uri: string,
  options: ResourceOptions<Env>,
  handler: ResourceHandler<Env>,
): ResourceEntry<Env> {
  checkArguments(`Resource "${uri}"`, options, handler, 'server.resource(uri, { name, ... }, handler)')
  checkResourceName(`Resource "${uri}"`, options)
  const { cache, scopes, visible, ...rest } = options
  return { definition: { uri, ...rest }, scopes: scopes ?? [], visible, cache, handler }
}

export function buildTemplateEntry<Env>(
  uriTemplate: string,
  options: ResourceTemplateOptions<Env>,
  handler: ResourceTemplateHandler<Env>,
): TemplateEntry<Env> {
  const what = `Resource template "${uriTemplate}"`
  checkArguments(what, options, handler, 'server.resourceTemplate(uriTemplate, { name, ... }, handler)')
  checkResourceName(what, options)
  checkCallbacks(what, options)
  const { cache, complete, scopes, visible, list, ...rest } = options
  return {
    definition: { uriTemplate, ...rest },
    template: compileUriTemplate(uriTemplate),
    scopes: scopes ?? [],
    visible,
    cache,
    complete: complete ?? {},
    list,
    handler,
  }
}

export function buildPromptEntry<Env>(
  name: string,
  options: PromptOptions<ObjectSchema | undefined, Env>,
  handler: PromptEntry<Env>['handler'],
  convert?: JsonSchemaConverter,
): PromptEntry<Env> {
  checkArguments(`Prompt "${name}"`, options, handler, 'server.prompt(name, { args, ... }, handler)')
  checkPromptArgs(`Prompt "${name}"`, options.args)
  checkCallbacks(`Prompt "${name}"`, options)
  return new RegisteredPrompt(name, options, handler, convert)
}

/** A prompt whose wire definition and required arguments are derived from its schema on first use, once. */
class RegisteredPrompt<Env> implements PromptEntry<Env> {
  readonly args: ObjectSchema | undefined
  readonly scopes: readonly string[]
  readonly visible: Visibility<Env> | undefined
  readonly complete: Record<string, Completer<Env>>
  readonly handler: PromptEntry<Env>['handler']
  readonly #name: string
  readonly #options: PromptOptions<ObjectSchema | undefined, Env>
  readonly #convert: JsonSchemaConverter | undefined
  /** The wire definition and required arguments; a conversion failure is kept (derived.ts). */
  readonly #built = new Derived<{ definition: Prompt; required: string[] }>()

  constructor(
    name: string,
    options: PromptOptions<ObjectSchema | undefined, Env>,
    handler: PromptEntry<Env>['handler'],
    convert: JsonSchemaConverter | undefined,
  ) {
    this.args = options.args
    this.scopes = options.scopes ?? []
    this.visible = options.visible
    this.complete = (options.complete ?? {}) as Record<string, Completer<Env>>
    this.handler = handler
    this.#name = name
    this.#options = options
    this.#convert = convert
  }

  get definition(): Prompt {
    return this.#derived().definition
  }

  get required(): string[] {
    return this.#derived().required
  }

  #derived(): { definition: Prompt; required: string[] } {
    return this.#built.get(
      () => promptDefinition(this.#name, this.#options, this.#convert),
      'prompt schema failed: the prompt is left out of lists and prompts/get fails',
    )
  }
}

function promptDefinition<Env>(
  name: string,
  options: PromptOptions<ObjectSchema | undefined, Env>,
  convert: JsonSchemaConverter | undefined,
): { definition: Prompt; required: string[] } {
  const definition: Prompt = { name }
  if (options.title !== undefined) definition.title = options.title
  if (options.description !== undefined) definition.description = options.description
  if (options.icons !== undefined) definition.icons = options.icons
  if (options._meta !== undefined) definition._meta = options._meta
  if (options.args === undefined) return { definition, required: [] }
  const schema = argumentsSchema(name, options.args, convert)
  const required = (schema.required as string[] | undefined) ?? []
  definition.arguments = Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([key, property]) => {
    const argument: PromptArgument = { name: key }
    if (typeof property.title === 'string') argument.title = property.title
    if (typeof property.description === 'string') argument.description = property.description
    argument.required = required.includes(key)
    return argument
  })
  return { definition, required }
}

/** A prompt's arguments as JSON Schema; what zod cannot express fails naming the prompt. */
function argumentsSchema(name: string, args: ObjectSchema, convert: JsonSchemaConverter | undefined): JsonSchema {
  try {
    return toJsonSchema(args, 'input', convert)
  } catch (error) {
    throw new Error(`Prompt "${name}", arguments: ${(error as Error).message}`)
  }
}
