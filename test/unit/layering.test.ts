/**
 * The architecture, checked: the pure layers import no runtime (STYLE "Architecture you can see";
 * DESIGN "Layers"), and the public surface changes only deliberately.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../packages/mcp-edge/src')

function sourceFiles(folder: string): string[] {
  return readdirSync(join(SRC, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(SRC, folder, file))
}

/** Every module specifier in static imports/exports, side-effect imports and dynamic imports. */
function specifiers(source: string): string[] {
  const found: string[] = []
  const patterns = [
    /^\s*(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ]
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1] as string)
  return found
}

const FORBIDDEN = (specifier: string) =>
  specifier === 'hono' || specifier.startsWith('hono/') || specifier.startsWith('cloudflare:') || specifier.startsWith('node:')

describe('layering', () => {
  it('finds the imports it is meant to police', () => {
    expect(specifiers("import * as z from 'zod/mini'\nimport type { A } from './a.ts'\nexport { b } from \"../b.ts\"")).toEqual([
      'zod/mini',
      './a.ts',
      '../b.ts',
    ])
    expect(specifiers("import 'node:fs'\nconst m = await import('cloudflare:workers')")).toEqual([
      'node:fs',
      'cloudflare:workers',
    ])
    expect(specifiers('import {\n  a,\n  b,\n} from "hono/tiny"')).toEqual(['hono/tiny'])
    expect(sourceFiles('server').some((file) => specifiers(readFileSync(file, 'utf8')).includes('zod/v4/mini'))).toBe(true)
  })

  it('keeps hono, cloudflare:* and node:* out of protocol/, server/ and oauth/', () => {
    const files = [...sourceFiles('protocol'), ...sourceFiles('server'), ...sourceFiles('oauth')]
    expect(files.length).toBeGreaterThan(20)
    const offending = files.flatMap((file) =>
      specifiers(readFileSync(file, 'utf8'))
        .filter(FORBIDDEN)
        .map((specifier) => `${relative(SRC, file)} imports ${specifier}`),
    )
    expect(offending).toEqual([])
  })

  it('lets each layer import only itself and the layers above it', () => {
    const allowed: Record<string, readonly string[]> = {
      protocol: ['protocol'],
      server: ['protocol', 'server'],
      oauth: ['protocol', 'oauth'],
    }
    const offending: string[] = []
    for (const [layer, layers] of Object.entries(allowed)) {
      for (const file of sourceFiles(layer)) {
        for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
          if (!specifier.startsWith('.')) continue
          const target = relative(SRC, resolve(dirname(file), specifier)).split(/[\\/]/)[0] ?? ''
          if (!layers.includes(target)) offending.push(`${relative(SRC, file)} imports ${specifier}`)
        }
      }
    }
    expect(offending).toEqual([])
  })

  it('keeps the upstream sign-in client (oauth/) a subpath of its own: no other layer imports it', () => {
    const offending = sourceFiles('.')
      .filter((file) => !relative(SRC, file).startsWith('oauth'))
      .flatMap((file) =>
        specifiers(readFileSync(file, 'utf8'))
          .filter(
            (specifier) => specifier.startsWith('.') && relative(SRC, resolve(dirname(file), specifier)).startsWith('oauth'),
          )
          .map((specifier) => `${relative(SRC, file)} imports ${specifier}`),
      )
    expect(offending).toEqual([])
    // Its only dependency is jose: the authorization server it serves is the template's choice.
    const packages = sourceFiles('oauth').flatMap((file) =>
      specifiers(readFileSync(file, 'utf8')).filter((specifier) => !specifier.startsWith('.')),
    )
    expect(new Set(packages)).toEqual(new Set(['jose']))
  })

  it('has no import cycle anywhere in src, type imports included (STYLE "imports run one way")', () => {
    const graph = new Map<string, string[]>()
    for (const file of sourceFiles('.')) {
      const local = specifiers(readFileSync(file, 'utf8')).filter((specifier) => specifier.startsWith('.'))
      graph.set(
        file,
        local.map((specifier) => resolve(dirname(file), specifier)),
      )
    }
    // Depth-first search; a module reached again while on the current path closes a cycle.
    const cycles: string[] = []
    const done = new Set<string>()
    const visit = (file: string, path: string[]) => {
      if (path.includes(file)) {
        cycles.push([...path.slice(path.indexOf(file)), file].map((step) => relative(SRC, step)).join(' → '))
        return
      }
      if (done.has(file) || !graph.has(file)) return
      for (const next of graph.get(file) ?? []) visit(next, [...path, file])
      done.add(file)
    }
    for (const file of graph.keys()) visit(file, [])
    expect(cycles).toEqual([])
  })
})

describe('public surface', () => {
  it('exports exactly these names from mcp-edge', async () => {
    expect(Object.keys(await import('../../packages/mcp-edge/src/index.ts')).sort()).toEqual([
      'APPS_EXTENSION',
      'APP_MIME_TYPE',
      'ATTR',
      'AuthChallenge',
      'ClientAnswerError',
      'ConfigurationError',
      'DEFAULT_MAX_RESULT_BYTES',
      'DURATION_BUCKETS_S',
      'ERROR_KINDS',
      'InputRequired',
      'LOG_LEVELS',
      'META',
      'McpError',
      'McpServer',
      'OPERATION_DURATION',
      'PARTIAL_LOG_META',
      'PROTOCOL_VERSION',
      'RequestStateCodec',
      'SUPPORTED_PROTOCOL_VERSIONS',
      'TASKS_EXTENSION',
      'TASK_PARTIALS_FILTER',
      'TaskSuspended',
      'ToolError',
      'aiCatalog',
      'bearerToken',
      'createKeyRing',
      'createLog',
      'createMcpHandler',
      'createMcpServer',
      'createTelemetry',
      'extractContext',
      'formatTraceparent',
      'input',
      'introspectionResourceServer',
      'isLocalRequest',
      'jwtResourceServer',
      'mcp',
      'mcpCors',
      'memoryResultStore',
      'metadataUrlOf',
      'openSessionStream',
      'otlpExporter',
      'otlpFromEnv',
      'parseResultUri',
      'parseTraceparent',
      'principalFromClaims',
      'protectedResourceMetadata',
      'recordingExporter',
      'registryServerJson',
      'rendersViews',
      'resultBudgets',
      'serverCard',
      'toolSearch',
    ])
  })

  it('exports exactly these names from mcp-edge/client', async () => {
    expect(Object.keys(await import('../../packages/mcp-edge/src/client/index.ts')).sort()).toEqual([
      'McpClient',
      'McpClientError',
      'PartialResultReader',
      'TooManyInputRounds',
      'createMcpRequest',
      'findHeaderParams',
      'paramHeaders',
      'readSse',
      'readToolCall',
      'resolveInput',
    ])
  })

  it('exports exactly these names from mcp-edge/oauth', async () => {
    expect(Object.keys(await import('../../packages/mcp-edge/src/oauth/index.ts')).sort()).toEqual([
      'UpstreamError',
      'exchangeToken',
      'githubProvider',
      'oidcProvider',
      'randomToken',
      's256',
      'upstreamFromConfig',
    ])
  })
})
