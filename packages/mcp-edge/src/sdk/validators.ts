/**
 * The SDKs' JSON Schema validator for Workers, as servers pass it (`new McpServer(info, {
 * jsonSchemaValidator: new CfWorkerJsonSchemaValidator() })`). mcp-edge validates arguments,
 * results and answers with the zod schemas they were registered with, so the option is accepted
 * and not used: the class is here so that such a server compiles with its import changed.
 */
export class CfWorkerJsonSchemaValidator {
  /** The SDK's options (`draft`, `shortcircuit`) have nothing to configure here. */
  // biome-ignore lint/complexity/noUselessConstructor: it takes the SDK's options, so that `new CfWorkerJsonSchemaValidator({ draft })` compiles
  constructor(_options?: Record<string, unknown>) {}
}
