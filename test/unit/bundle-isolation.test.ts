/**
 * Opt-in features stay out of a bundle that does not opt in (issue 38: the templates' budgets).
 * Tool search, result budgets and the Server Card are wired by the function that builds their
 * option (`toolSearch()`, `resultBudgets()`, `serverCard()`), and a 2025 session's GET stream by
 * `services.sessionStreams` (`openSessionStream`), so a Worker that never names one carries none
 * of its code. Bundled with esbuild (as wrangler does, tree-shaken, unminified so
 * function names stay readable) from the library's sources; hono and zod are left out.
 */
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'

const LIBRARY = resolve(dirname(fileURLToPath(import.meta.url)), '../../packages/mcp-edge/src/index.ts')

/** A function of each feature that only that feature's code defines. */
const FEATURES = {
  toolSearch: 'function rankTools(',
  resultBudgets: 'function previewResult(',
  serverCard: 'function discoveryRoute(',
  openSessionStream: 'function openSessionStream(',
}

/** A Worker of one server: `serverOptions` and `httpOptions` are source text spread into its options. */
async function bundle(
  serverOptions = '',
  httpOptions = '',
  external = ['hono', 'hono/*', 'zod', 'zod/*', 'cloudflare:*'],
): Promise<string> {
  const imports = Object.keys(FEATURES).join(', ')
  const contents = `import { createMcpServer, mcp, memoryResultStore, ${imports} } from ${JSON.stringify(LIBRARY)}
const server = createMcpServer({ name: 'probe', version: '1.0.0', ${serverOptions} })
export default mcp(server, { ${httpOptions} })
`
  const result = await build({
    stdin: { contents, loader: 'ts', resolveDir: dirname(LIBRARY) },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    external,
    logLevel: 'error',
  })
  return result.outputFiles[0]?.text ?? ''
}

describe('opt-in features and the bundle', () => {
  it('leaves tool search, result budgets, the Server Card and session streams out of a server that does not use them', async () => {
    const code = await bundle()
    for (const marker of Object.values(FEATURES)) expect(code).not.toContain(marker)
    // What a session stream keeps of its session comes with it (server/legacy/stream-facts.ts).
    expect(code).not.toContain('StreamFacts')
  })

  it('bundles each of them once the server opts in', async () => {
    const code = await bundle(
      'toolSearch: toolSearch({ alwaysListed: [] }), results: resultBudgets({ store: memoryResultStore() })',
      "serverCard: serverCard({ name: 'com.example/probe' }), services: () => ({ sessionStreams: openSessionStream })",
    )
    for (const marker of Object.values(FEATURES)) expect(code).toContain(marker)
    expect(code).toContain('StreamFacts')
  })

  // A read through `z.core` (`error instanceof z.core.$ZodAsyncError`) made esbuild keep zod's
  // whole core namespace object: the bench's loop Worker went from 72 to 132 KiB gzip, every
  // template with it. zod's own JSON Schema generator is in that namespace, and nowhere else here.
  it("takes only the zod functions it names, not zod's core namespace", async () => {
    const code = await bundle('', '', ['hono', 'hono/*', 'cloudflare:*'])
    expect(code).toContain('$ZodAsyncError')
    expect(code).not.toContain('JSONSchemaGenerator')
  })
})
