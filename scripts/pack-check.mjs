#!/usr/bin/env node
/**
 * `npm run pack:check` (a step of `npm test`): what a user installs, checked the way a user gets
 * it. Builds (unless `--built`); lints the packages (publint --strict, @arethetypeswrong/cli
 * --profile esm-only); packs mcp-edge and create-mcp-edge with `npm pack` (create-mcp-edge from a
 * copy outside the repository); checks that the library's tarball holds only
 * what users need; scaffolds each template from the tarballs into a folder outside the repository
 * (`npx <create tarball> <dir> --template <t> --mcp-edge <library tarball>`, which installs from
 * the npm registry through the shared npm cache); runs each project's own `npm test` and
 * `npm run check`; serves minimal and durable with `npm run dev` and drives them with the official
 * MCP client (in durable, a task reaches completed); and compiles a consumer against the built
 * declarations with TypeScript 5.9 and `skipLibCheck: false`: the first ```ts block of the
 * library's README as the only file of an empty project, then every other ```ts block of the
 * README and docs/ the same way. The stages after the pack run two at a time. Prints each stage's
 * seconds; exits non-zero on any failure.
 */
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startCollector } from '../test/support/otlp-collector.ts'
// Below the kernel's ephemeral ports, in npm test's second lane's half (MCP_EDGE_TEST_LANE): not
// taken, between the pick and wrangler's bind, by the first lane's servers and connections.
import { freePort } from '../test/support/wrangler.ts'

const ROOT = resolve(fileURLToPath(import.meta.url), '../..')
const LIBRARY = join(ROOT, 'packages/mcp-edge')
const TEMPLATES = ['minimal', 'durable', 'oauth']
const SERVED = ['minimal', 'durable']
/** The TypeScript a consumer on the oldest supported release compiles with. */
const CONSUMER_TS = '5.9.3'
/** How a consumer's project compiles: a Workers project's settings, the declarations of every package checked. */
const CONSUMER_OPTIONS = {
  target: 'es2022',
  module: 'esnext',
  moduleResolution: 'bundler',
  lib: ['es2022'],
  types: ['@cloudflare/workers-types'],
  strict: true,
  skipLibCheck: false,
  noEmit: true,
}
const WORK = mkdtempSync(join(tmpdir(), 'mcp-edge-pack-'))
const ENV = {
  ...process.env,
  WRANGLER_SEND_METRICS: 'false',
  npm_config_prefer_offline: 'true',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
}
const started = Date.now()
let failures = 0

function stage(name, fn) {
  const begin = Date.now()
  console.log(`\n[pack-check] ${name}`)
  return Promise.resolve()
    .then(fn)
    .then(
      () => console.log(`[pack-check] ✓ ${name} (${((Date.now() - begin) / 1000).toFixed(1)} s)`),
      (error) => {
        failures++
        console.log(`[pack-check] ✗ ${name} (${((Date.now() - begin) / 1000).toFixed(1)} s): ${error.message}`)
      },
    )
}

/** Run a command to completion, without waiting on it (the stages run two at a time): its exit status and output. */
function spawned(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: ENV, ...options, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (status, signal) => resolve({ status: status ?? signal, stdout, stderr }))
  })
}

/** Run a command to completion; throws with its output when it fails. Returns its stdout (`both`: and stderr). */
async function run(command, args, { both = false, ...options } = {}) {
  const result = await spawned(command, args, options)
  if (result.status !== 0) {
    const output = `${result.stdout}${result.stderr}`.trim().split('\n').slice(-40).join('\n')
    throw new Error(`${command} ${args.join(' ')} exited ${result.status}\n${output}`)
  }
  return both ? `${result.stdout}${result.stderr}` : result.stdout
}

/** `npm run dev` of a scaffolded project on a free port; resolves once /mcp answers. */
async function serve(dir, env = {}) {
  const port = await freePort()
  const child = spawn('npm', ['run', 'dev'], {
    cwd: dir,
    env: { ...ENV, ...env, PORT: String(port) },
    detached: true,
    stdio: 'ignore',
  })
  const failed = new Promise((_, fail) => child.on('error', fail))
  failed.catch(() => {})
  const url = `http://127.0.0.1:${port}/mcp`
  const stop = () => {
    try {
      process.kill(-child.pid, 'SIGTERM')
    } catch {
      // gone already
    }
  }
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm run dev in ${dir} exited ${child.exitCode}`)
    await Promise.race([failed, Promise.resolve()])
    const answered = await fetch(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }).then(
      () => true,
      () => false,
    )
    if (answered) return { url, port, stop }
    await new Promise((done) => setTimeout(done, 300))
  }
  stop()
  throw new Error(`npm run dev in ${dir} did not answer within 60 s`)
}

/** The official MCP client (2.x), pinned to 2026-07-28, connected to the MCP endpoint at `url`. */
async function connected(url) {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client')
  const client = new Client({ name: 'pack-check', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  return client
}

/** The official client (2026-07-28): discover, list, call; for durable, a task polled to completed. */
async function drive(template, url) {
  const client = await connected(url)
  try {
    await client.discover()
    const { tools } = await client.listTools()
    const first = tools[0]?.name
    const args = template === 'minimal' ? { a: 2, b: 3 } : { text: 'from the pack check' }
    const result = await client.callTool({ name: first, arguments: args })
    const text = result.content?.[0]?.text ?? ''
    if (template === 'minimal' && text !== '5') throw new Error(`add answered ${JSON.stringify(result)}`)
    if (template === 'durable' && !/^Note \d+ added/.test(text)) throw new Error(`add_note answered ${JSON.stringify(result)}`)
    if (template === 'durable') await taskCompletes(url)
    return `${tools.length} tool(s), ${first} → ${JSON.stringify(text)}`
  } finally {
    await client.close()
  }
}

/** generate_report as a task (the client declares the Tasks extension), then tasks/get until it settles. */
async function taskCompletes(url) {
  await consumerInstalled
  const { McpClient } = await import(join(WORK, 'consumer/node_modules/mcp-edge/dist/client/index.js'))
  const client = new McpClient({ url, capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } })
  const handle = await client.callTool('generate_report', { subject: 'packaging', sections: 2 })
  if (handle.resultType !== 'task') throw new Error(`generate_report did not answer a task: ${JSON.stringify(handle)}`)
  for (let poll = 0; poll < 150; poll++) {
    const task = await client.request('tasks/get', { taskId: handle.taskId })
    if (task.status === 'completed') return
    if (task.status !== 'working') throw new Error(`the task ended ${task.status}: ${JSON.stringify(task)}`)
    await new Promise((done) => setTimeout(done, 200))
  }
  throw new Error('the task did not complete within 30 s')
}

/** What npm installed: its size, and one workerd for the Vitest pool and `wrangler dev` (the templates' overrides). */
async function installed(dir) {
  const versions = new Set(
    readdirSync(join(dir, 'node_modules'), { recursive: true, encoding: 'utf8' })
      .filter((path) => /(^|\/)workerd\/package\.json$/.test(path))
      .map((path) => JSON.parse(readFileSync(join(dir, 'node_modules', path), 'utf8')).version),
  )
  if (versions.size !== 1) throw new Error(`the scaffold installs workerd ${[...versions].join(' and ')}, not one`)
  const megabytes = (await run('du', ['-sm', join(dir, 'node_modules')])).split('\t')[0]
  return `node_modules: ${megabytes} MB, workerd ${[...versions][0]}`
}

/** One log line the library prints per request (the templates' tests must not show it when they pass). */
const REQUEST_LINE = /"msg":"mcp request"/

/**
 * The project's `npm test`: passes, without the server's per-request log lines. In minimal, a
 * failing test (written for the occasion, then removed) does show the line of its request.
 */
async function quietTests(dir, template) {
  const output = await run('npm', ['test'], { cwd: dir, both: true })
  if (REQUEST_LINE.test(output)) throw new Error(`npm test printed the log lines of passing tests:\n${output}`)
  if (template !== 'minimal') return
  const failing = join(dir, 'test/fails-on-purpose.test.ts')
  writeFileSync(
    failing,
    `import { exports } from 'cloudflare:workers'
import { McpClient } from 'mcp-edge/client'
import { expect, it } from 'vitest'
it('adds wrongly', async () => {
  const client = new McpClient({ url: 'http://127.0.0.1/mcp', fetch: (request) => exports.default.fetch(request) })
  expect((await client.callTool('add', { a: 2, b: 3 })).content).toEqual([{ type: 'text', text: '6' }])
})
`,
  )
  try {
    const result = await spawned('npx', ['vitest', 'run', 'test/fails-on-purpose.test.ts'], { cwd: dir })
    const shown = `${result.stdout}${result.stderr}`
    if (result.status === 0 || !/"method":"tools\/call","target":"add"/.test(shown))
      throw new Error(`a failing test did not show its request's log line (exit ${result.status}):\n${shown}`)
  } finally {
    rmSync(failing)
  }
}

/** The ```ts blocks of a Markdown file. */
const tsBlocks = (markdown) => [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1])

const tarballs = {}

/**
 * `--built`: the packages were just built by the caller (npm test builds first, then runs this
 * beside other tests): neither built again here nor by mcp-edge's prepack, since a build empties
 * dist/ while those tests' servers read it.
 */
const built = process.argv.includes('--built')

/**
 * A copy of create-mcp-edge outside the repository, beside a copy of templates/ as in the
 * repository, to pack from: its prepack copies the templates into the package's folder and its
 * postpack removes them, and in the repository that folder, while it exists, is what
 * create-mcp-edge scaffolds from (index.mjs), which test/unit/create.test.ts may be doing beside
 * this check (npm test). Packed there, its own prepack and postpack run as in the repository.
 */
function stagedCreatePackage() {
  const staged = join(WORK, 'stage')
  const made = new Set(['node_modules', '.wrangler', 'dist'])
  cpSync(join(ROOT, 'templates'), join(staged, 'templates'), {
    recursive: true,
    filter: (from) => !made.has(basename(from)),
  })
  const pkg = join(staged, 'packages/create-mcp-edge')
  const source = join(ROOT, 'packages/create-mcp-edge')
  cpSync(source, pkg, {
    recursive: true,
    filter: (from) => from === source || !['node_modules', 'templates'].includes(basename(from)),
  })
  return pkg
}

await stage(`${built ? 'lint' : 'build and lint'} the packages (publint --strict, attw --profile esm-only)`, async () => {
  if (!built) await run('npm', ['run', 'build'])
  for (const pkg of ['packages/mcp-edge', 'packages/create-mcp-edge']) await run('npx', ['publint', '--strict', pkg])
})

await stage('npm pack mcp-edge and create-mcp-edge', async () => {
  const packed = [
    ...JSON.parse(
      await run('npm', ['pack', '-w', 'mcp-edge', '--json', '--pack-destination', WORK, ...(built ? ['--ignore-scripts'] : [])]),
    ),
    ...JSON.parse(await run('npm', ['pack', '--json', '--pack-destination', WORK], { cwd: stagedCreatePackage() })),
  ]
  for (const entry of packed)
    tarballs[entry.name] = { path: join(WORK, entry.filename), files: entry.files.map((file) => file.path) }
  const library = tarballs['mcp-edge']
  const stray = library.files.filter(
    (file) =>
      !/^(dist\/.+\.(js|d\.ts)|bin\/mcp-edge\.mjs|docs\/.+\.md|README\.md|CHANGELOG\.md|LICENSE|package\.json)$/.test(file),
  )
  if (stray.length > 0) throw new Error(`the mcp-edge tarball holds what users do not need: ${stray.join(', ')}`)
  const create = tarballs['create-mcp-edge']
  for (const template of TEMPLATES) {
    if (!create.files.includes(`templates/${template}/wrangler.jsonc`))
      throw new Error(`create-mcp-edge lacks templates/${template}`)
  }
  console.log(`  mcp-edge: ${library.files.length} files; create-mcp-edge: ${create.files.length} files`)
  await run('npx', ['attw', library.path, '--profile', 'esm-only'])
})

/** The consumer project (its install is what durable's served check imports the client from: `taskCompletes`). */
const consumer = () =>
  stage(
    `compile a consumer of the tarball (TypeScript ${CONSUMER_TS}, skipLibCheck: false): README and docs ts blocks`,
    async () => {
      const dir = join(WORK, 'consumer')
      mkdirSync(join(dir, 'blocks'), { recursive: true })
      const { version } = JSON.parse(readFileSync(join(LIBRARY, 'package.json'), 'utf8'))
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({
          name: 'consumer',
          private: true,
          type: 'module',
          dependencies: { 'mcp-edge': `file:${tarballs['mcp-edge'].path}` },
        }),
      )
      // The peers and the types a Workers project has; vitest for the docs' test examples.
      const peers = ['hono@^4', 'zod@^4', '@cloudflare/workers-types', `typescript@${CONSUMER_TS}`, 'vitest@5']
      await run('npm', ['install', '--no-save', ...peers], { cwd: dir })
      await run('npm', ['install'], { cwd: dir })
      const compile = (files) => {
        writeFileSync(
          join(dir, 'tsconfig.json'),
          JSON.stringify({
            compilerOptions: CONSUMER_OPTIONS,
            files,
          }),
        )
        return run(join(dir, 'node_modules/.bin/tsc'), ['-p', dir], { cwd: dir })
      }
      // The README inside the tarball: its first ts block alone, as the issue's user would paste it.
      const readme = readFileSync(join(dir, 'node_modules/mcp-edge/README.md'), 'utf8')
      const [first, ...rest] = tsBlocks(readme)
      if (!first) throw new Error('the README in the tarball has no ```ts block')
      writeFileSync(join(dir, 'blocks/readme-1.ts'), first)
      await compile(['blocks/readme-1.ts'])
      // Then every other block of the README and of docs/ (each a module of its own).
      const files = rest.map((block, i) => ['readme', i + 2, block])
      const docs = join(dir, 'node_modules/mcp-edge/docs')
      for (const file of existsSync(docs) ? readdirSync(docs).filter((name) => name.endsWith('.md')) : []) {
        for (const [i, block] of tsBlocks(readFileSync(join(docs, file), 'utf8')).entries()) {
          files.push([file.replace(/\.md$/, ''), i + 1, block])
        }
      }
      // What `wrangler types` gives a project whose Worker is README block 1: its main module, which
      // types `exports` from cloudflare:workers (the docs' tests call `exports.default.fetch`).
      writeFileSync(
        join(dir, 'worker-configuration.d.ts'),
        'declare namespace Cloudflare {\n  interface GlobalProps {\n    mainModule: typeof import("./blocks/readme-1")\n  }\n}\n',
      )
      const names = files.map(([name, index, block]) => {
        const path = `blocks/${name}-${index}.ts`
        writeFileSync(join(dir, path), block)
        return path
      })
      if (names.length > 0) await compile(['worker-configuration.d.ts', 'blocks/readme-1.ts', ...names])
      console.log(`  mcp-edge ${version}: README block 1 alone, then ${names.length} more block(s) from the README and docs/`)
    },
  )

// Servers ported from agents often pin zod 3.25, which carries zod 4 as `zod/v4`: the library
// must resolve and type-check against that install too (it imports zod/v4/mini, which both have),
// and take their zod 3 schemas (`from 'zod'`) as SDK 1.x did.
const zod325 = () =>
  stage(
    'an SDK-style server on zod 3.25 (schemas from zod, and from zod/v4): compiles (skipLibCheck: false), then serves',
    async () => {
      const dir = join(WORK, 'zod-3.25')
      mkdirSync(join(dir, 'src'), { recursive: true })
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({
          name: 'zod-325',
          private: true,
          type: 'module',
          scripts: { dev: `${join(ROOT, 'node_modules/.bin/wrangler')} dev --ip 127.0.0.1 --port $PORT` },
          dependencies: { 'mcp-edge': `file:${tarballs['mcp-edge'].path}` },
        }),
      )
      await run(
        'npm',
        ['install', '--no-save', 'zod@3.25.76', 'hono@^4', '@cloudflare/workers-types', `typescript@${CONSUMER_TS}`],
        { cwd: dir },
      )
      await run('npm', ['install'], { cwd: dir })
      writeFileSync(
        join(dir, 'wrangler.jsonc'),
        JSON.stringify({
          name: 'zod-325',
          main: 'src/index.ts',
          compatibility_date: '2026-11-01',
          compatibility_flags: ['nodejs_compat'],
        }),
      )
      writeFileSync(
        join(dir, 'src/index.ts'),
        `import { createMcpHandler as nativeHandler, createMcpServer, toolSearch } from 'mcp-edge'
import { createMcpHandler, McpServer } from 'mcp-edge/sdk'
import { z as z3 } from 'zod'
import { z } from 'zod/v4'

const server = new McpServer({ name: 'zod-325', version: '1.0.0' })
server.registerTool(
  'add',
  { inputSchema: { a: z.number().describe('first'), b: z.number().min(0) }, outputSchema: { sum: z.number() } },
  async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
)
// zod 3, as most McpAgent servers wrote it.
server.tool('calculate', { operation: z3.enum(['add', 'divide']), a: z3.number(), b: z3.number().describe('second') }, async ({ operation, a, b }) => ({
  content: [{ type: 'text', text: String(operation === 'add' ? a + b : a / b) }],
}))
server.registerTool(
  'signup',
  {
    inputSchema: {
      email: z3.string().trim().email().refine((value) => !value.endsWith('.test'), 'no test domains'),
      age: z3.number({ errorMap: (issue, ctx) => ({ message: issue.code === 'too_small' ? 'adults only' : ctx.defaultError }) }).int().min(18).optional(),
    },
  },
  async ({ email, age }) => ({ content: [{ type: 'text', text: \`\${email} \${age ?? '-'}\` }] }),
)
// The native API at /native, with tool search (its own schema is built with zod/v4/mini).
const native = createMcpServer({ name: 'zod-325-native', version: '1.0.0', toolSearch: toolSearch({ alwaysListed: [] }) })
native.tool('add', { input: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => ({
  content: [{ type: 'text', text: String(a + b) }],
}))
const sdk = createMcpHandler(server)
const edge = nativeHandler(native)
export default {
  fetch: (request: Request, env: unknown, ctx: ExecutionContext) =>
    new URL(request.url).pathname === '/native' ? edge(request, env, ctx) : sdk(request, env, ctx),
}
`,
      )
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: CONSUMER_OPTIONS,
          include: ['src'],
        }),
      )
      await run(join(dir, 'node_modules/.bin/tsc'), ['-p', dir], { cwd: dir })
      const server = await serve(dir)
      try {
        const client = await connected(server.url)
        try {
          const [tool, calculate] = (await client.listTools()).tools
          if (tool?.inputSchema.properties?.b?.minimum !== 0) throw new Error(`tools/list answered ${JSON.stringify(tool)}`)
          if (
            calculate?.inputSchema.properties?.b?.description !== 'second' ||
            calculate.inputSchema.properties.operation?.enum?.length !== 2
          )
            throw new Error(`tools/list answered ${JSON.stringify(calculate)}`)
          const quotient = await client.callTool({ name: 'calculate', arguments: { operation: 'divide', a: 9, b: 2 } })
          if (quotient.content?.[0]?.text !== '4.5') throw new Error(`calculate answered ${JSON.stringify(quotient)}`)
          const modulo = await client.callTool({ name: 'calculate', arguments: { operation: 'modulo', a: 9, b: 2 } })
          if (!modulo.isError) throw new Error(`calculate took operation: modulo: ${JSON.stringify(modulo)}`)
          const signup = (await client.listTools()).tools.find((each) => each.name === 'signup')
          if (signup?.inputSchema.properties?.email?.format !== 'email')
            throw new Error(`tools/list answered ${JSON.stringify(signup)}`)
          const joined = await client.callTool({ name: 'signup', arguments: { email: ' ada@example.com ' } })
          if (joined.content?.[0]?.text !== 'ada@example.com -') throw new Error(`signup answered ${JSON.stringify(joined)}`)
          const unmailed = await client.callTool({ name: 'signup', arguments: { email: 'ada', age: 30 } })
          if (!unmailed.isError) throw new Error(`signup took email: ada: ${JSON.stringify(unmailed)}`)
          const young = await client.callTool({ name: 'signup', arguments: { email: 'ada@example.com', age: 17 } })
          // The schema's error map words its checks' issues too, as zod 3 does (zod 3.25's zod 4.0 asks only the check).
          if (!young.isError || !JSON.stringify(young).includes('adults only'))
            throw new Error(`signup took age: 17, or did not say "adults only": ${JSON.stringify(young)}`)
          const tested = await client.callTool({ name: 'signup', arguments: { email: 'ada@example.test' } })
          if (!tested.isError || !JSON.stringify(tested).includes('no test domains'))
            throw new Error(`signup took a .test domain: ${JSON.stringify(tested)}`)
          const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })
          if (sum.structuredContent?.sum !== 5) throw new Error(`add answered ${JSON.stringify(sum)}`)
          const refused = await client.callTool({ name: 'add', arguments: { a: 2, b: -3 } })
          if (!refused.isError) throw new Error(`add took b: -3: ${JSON.stringify(refused)}`)
          const native = await connected(server.url.replace(/\/mcp$/, '/native'))
          try {
            const [search] = (await native.listTools()).tools
            if (!search?.inputSchema.properties?.query?.description)
              throw new Error(`tools/list at /native answered ${JSON.stringify(search)}`)
            const found = await native.callTool({ name: search.name, arguments: { query: 'add' } })
            if (!JSON.stringify(found).includes('add')) throw new Error(`${search.name} answered ${JSON.stringify(found)}`)
          } finally {
            await native.close()
          }
          console.log(
            `  zod ${JSON.parse(readFileSync(join(dir, 'node_modules/zod/package.json'), 'utf8')).version}: add → 5, b: -3 refused; zod 3's calculate → 4.5, modulo refused, signup's email format and refinement checked; tool search at /native`,
          )
        } finally {
          await client.close()
        }
      } finally {
        server.stop()
      }
    },
  )

/** A template scaffolded from the tarballs, its own checks run, then (minimal, durable) served and driven. */
const scaffold = (template) => async () => {
  const dir = join(WORK, 'projects', `my-${template}-server`)
  await stage(`scaffold ${template} from the tarballs, then its npm test and npm run check`, async () => {
    mkdirSync(join(WORK, 'projects'), { recursive: true })
    // As a user would type it, beside the tarballs: `npx ./create-mcp-edge-<v>.tgz …` (npx takes a
    // relative path as a package to run; an absolute one as a command).
    const local = (name) => `./${basename(tarballs[name].path)}`
    const printed = await run(
      'npx',
      [
        '--yes',
        local('create-mcp-edge'),
        `projects/my-${template}-server`,
        '--template',
        template,
        '--mcp-edge',
        local('mcp-edge'),
      ],
      {
        cwd: WORK,
      },
    )
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    if (pkg.name !== `my-${template}-server`) throw new Error(`the package is named ${pkg.name}`)
    const server = readFileSync(join(dir, 'src/index.ts'), 'utf8')
    if (!server.includes(`  name: 'my-${template}-server',`)) throw new Error("the server's name is not the folder's")
    // Installed: the next three commands, no npm install among them.
    const next = /^Next:\n((?: {2}.+\n){3})/m
      .exec(printed)?.[1]
      .replace(/ *#.*$/gm, '')
      .trim()
    if (next !== `cd projects/my-${template}-server\n  npm run dev\n  npm test`)
      throw new Error(`create-mcp-edge printed:\n${printed}`)
    if (!existsSync(join(dir, '.gitignore'))) throw new Error('no .gitignore in the scaffold')
    console.log(`  ${template}: ${await installed(dir)}`)
    await quietTests(dir, template)
    // `npm run types` regenerates the committed file as it is, with no advice to act on.
    const committed = readFileSync(join(dir, 'worker-configuration.d.ts'), 'utf8')
    const typed = await run('npm', ['run', 'types'], { cwd: dir, both: true })
    if (/Action required/.test(typed)) throw new Error(`npm run types asks for action:\n${typed}`)
    if (readFileSync(join(dir, 'worker-configuration.d.ts'), 'utf8') !== committed)
      throw new Error('npm run types changed worker-configuration.d.ts')
    await run('npm', ['run', 'check'], { cwd: dir })
  })
  if (SERVED.includes(template)) {
    await stage(`serve ${template} (npm run dev) and drive it with the official MCP client`, async () => {
      // minimal: OTEL_EXPORTER_OTLP_ENDPOINT in the shell reaches the Worker through `npm run dev`.
      const collector = template === 'minimal' ? await startCollector() : undefined
      const server = await serve(dir, collector ? { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint } : {})
      try {
        console.log(`  ${template}: ${await drive(template, server.url)}`)
        if (collector) {
          const spans = await collector.waitFor((all) => all.some((span) => span.name === 'tools/call add'))
          console.log(`  OTLP: ${spans.map((span) => span.name).join(', ')} (service ${spans[0]?.service})`)
          // wrangler's local trace store fills apart from the answers (as the OTLP batches do): ask until the call is there.
          const spansNow = () => run('npm', ['run', '--silent', 'spans', '--', '--port', String(server.port)], { cwd: dir })
          let printed = await spansNow()
          for (const deadline = Date.now() + 20_000; !/tools\/call add +complete/.test(printed); printed = await spansNow()) {
            if (Date.now() > deadline) throw new Error(`npm run spans printed:\n${printed}`)
            await new Promise((done) => setTimeout(done, 500))
          }
          console.log(
            `  npm run spans: ${printed.trim().split('\n').length} span(s), the last: ${printed.trim().split('\n').at(-1)}`,
          )
        }
      } finally {
        server.stop()
        await collector?.close()
      }
    })
  }
}

// The checks after the pack, two at a time (each is mostly one process at a time: an install, a
// test run, a compile), in this order, so the two longest start first. Durable's served check
// imports the client from the consumer's install (`taskCompletes`), which the first job makes.
const consumerInstalled = consumer()
const jobs = [() => consumerInstalled, scaffold('minimal'), zod325, scaffold('durable'), scaffold('oauth')]
await Promise.all(
  [0, 1].map(async () => {
    for (let job = jobs.shift(); job; job = jobs.shift()) await job()
  }),
)

if (failures === 0) rmSync(WORK, { recursive: true, force: true })
else console.log(`\n[pack-check] left ${WORK} for a look`)
console.log(
  `\n[pack-check] ${failures === 0 ? 'passed' : `${failures} stage(s) failed`} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
)
process.exit(failures === 0 ? 0 : 1)
