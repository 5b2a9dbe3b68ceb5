/**
 * create-mcp-edge (packages/create-mcp-edge/index.mjs), run as a process the way `npm create`
 * runs it, from the repository's templates and without installing (`--no-install`), except where
 * the install itself is what is tested. The pack check runs it from its tarball, installs and
 * tests what it made; here: what it writes, and that bad input writes nothing.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'

const CLI = resolve(import.meta.dirname, '../../packages/create-mcp-edge/index.mjs')
const dirs: string[] = []
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'create-mcp-edge-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** Run the CLI in `cwd` with standard input closed (not a terminal: it must never prompt). */
function create(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    encoding: 'utf8',
    input: '',
    env: { ...process.env, ...env },
    timeout: 60_000,
  })
  return { status: run.status, out: `${run.stdout}${run.stderr}` }
}
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'))
const devVars = (dir: string) => readFileSync(join(dir, '.dev.vars'), 'utf8')
const stateKeyOf = (dir: string) => /^MCP_STATE_KEYS="dev:([^"]+)"$/m.exec(devVars(dir))?.[1]
/** The commands under "Next:", without their comments. */
const nextCommands = (out: string) =>
  (/^Next:\n((?: {2}.+\n)+)/m.exec(out)?.[1] ?? '')
    .trimEnd()
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
/** The project's text files (lock files aside) with a line matching `pattern`, as `file: line`. */
function grep(dir: string, pattern: RegExp) {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(ts|json|jsonc|md)$/.test(file) && !file.endsWith('.d.ts'))
    .flatMap((file) =>
      readFileSync(join(dir, file), 'utf8')
        .split('\n')
        .filter((line) => pattern.test(line))
        .map((line) => `${file}: ${line}`),
    )
}

// Each test spawns the CLI once or twice: seconds on a loaded machine, past the unit project's 5 s default.
describe('create-mcp-edge', { timeout: 30_000 }, () => {
  it.each(['minimal', 'durable', 'oauth'])(
    'scaffolds %s: named after its folder, dotfiles restored, nothing a project makes for itself',
    (template) => {
      const cwd = scratch()
      const { status, out } = create(cwd, [`my-${template}`, '--template', template, '--no-install'])
      expect(status, out).toBe(0)
      const dir = join(cwd, `my-${template}`)
      const name = `my-${template}`
      expect(json(join(dir, 'package.json')).name).toBe(name)
      expect(readFileSync(join(dir, 'wrangler.jsonc'), 'utf8')).toMatch(new RegExp(`^\\s*"name": "${name}",$`, 'm'))
      // The server says the same name in its serverInfo, the README's heading and server.json.
      const source = readFileSync(join(dir, 'src/index.ts'), 'utf8')
      expect(source).toMatch(new RegExp(`^  name: '${name}',$`, 'm'))
      expect(source).toMatch(new RegExp(`^  title: '${name}',$`, 'm'))
      expect(readFileSync(join(dir, 'README.md'), 'utf8').split('\n')[0]).toBe(`# ${name}`)
      expect(json(join(dir, 'server.json'))).toMatchObject({ name: `io.github.your-username/${name}`, title: name })
      expect(grep(dir, new RegExp(`mcp-edge[- ]${template}`, 'i'))).toEqual([])
      expect(readFileSync(join(dir, '.gitignore'), 'utf8')).toContain('.dev.vars')
      expect(existsSync(join(dir, '.dev.vars.example'))).toBe(true)
      // The registry listing comes along, in step with the package.
      expect(json(join(dir, 'server.json')).version).toBe(json(join(dir, 'package.json')).version)
      for (const made of ['node_modules', '.wrangler', 'dist', 'assets', '_gitignore'])
        expect(existsSync(join(dir, made)), made).toBe(false)
      // No bearer token: a local client connects without one.
      expect(devVars(dir)).not.toMatch(/^MCP_BEARER_TOKEN="[^"]+"$/m)
      // The next three commands, in order.
      expect(nextCommands(out)).toEqual([`cd my-${template} && npm install`, 'npm run dev', 'npm test'])
      expect(out).toContain('http://127.0.0.1:8787/mcp')
    },
  )

  it('lists every option in --help', () => {
    const { status, out } = create(scratch(), ['--help'])
    expect(status).toBe(0)
    const source = readFileSync(CLI, 'utf8')
    const options = /options: \{([\s\S]*?)\n {6}\},/.exec(source)?.[1] ?? ''
    const names = [...options.matchAll(/^ {8}'?([\w-]+)'?: \{ type: '(\w+)'(?:, short: '(\w)')?/gm)]
    expect(names.map(([, name]) => name)).toEqual(['template', 'install', 'mcp-edge', 'help'])
    for (const [, name, type, short] of names) {
      // A boolean that defaults to true is offered as its negation.
      expect(out).toContain(name === 'install' ? '--no-install' : `--${name}${type === 'string' ? ' ' : ''}`)
      if (short) expect(out).toContain(`-${short}`)
    }
    for (const template of ['minimal', 'durable', 'oauth']) expect(out).toMatch(new RegExp(`^  ${template} +\\S`, 'm'))
  })

  it('writes a fresh development state key for each project (32 random bytes)', () => {
    const cwd = scratch()
    expect(create(cwd, ['a', '--template', 'durable', '--no-install']).status).toBe(0)
    expect(create(cwd, ['b', '--template', 'durable', '--no-install']).status).toBe(0)
    const [a, b] = [stateKeyOf(join(cwd, 'a')), stateKeyOf(join(cwd, 'b'))]
    expect(Buffer.from(a ?? '', 'base64')).toHaveLength(32)
    expect(a).not.toBe(b)
  })

  it('takes minimal when no template is given and standard input is no terminal, without asking', () => {
    const cwd = scratch()
    const { status, out } = create(cwd, ['quiet', '--no-install'])
    expect(status, out).toBe(0)
    expect(json(join(cwd, 'quiet/package.json')).description).toContain('one tool')
  })

  it('writes --mcp-edge as an absolute file: spec when it is a path', () => {
    const cwd = scratch()
    writeFileSync(join(cwd, 'mcp-edge-0.1.0.tgz'), '')
    expect(create(cwd, ['pinned', '--no-install', '--mcp-edge', './mcp-edge-0.1.0.tgz']).status).toBe(0)
    expect(json(join(cwd, 'pinned/package.json')).dependencies['mcp-edge']).toBe(`file:${join(cwd, 'mcp-edge-0.1.0.tgz')}`)
    expect(create(cwd, ['ranged', '--no-install', '--mcp-edge', '^0.2.0']).status).toBe(0)
    expect(json(join(cwd, 'ranged/package.json')).dependencies['mcp-edge']).toBe('^0.2.0')
  })

  describe('refuses, and writes nothing', () => {
    it('a folder that exists and is not empty', () => {
      const cwd = scratch()
      mkdirSync(join(cwd, 'taken'))
      writeFileSync(join(cwd, 'taken/keep.txt'), 'mine')
      const { status, out } = create(cwd, ['taken', '--no-install'])
      expect(status).toBe(2)
      expect(out).toContain(`${join(cwd, 'taken')} exists and is not empty (1 entry); nothing was written.`)
      expect(readdirSync(join(cwd, 'taken'))).toEqual(['keep.txt'])
      expect(readFileSync(join(cwd, 'taken/keep.txt'), 'utf8')).toBe('mine')
    })

    it('a file where the folder would be', () => {
      const cwd = scratch()
      writeFileSync(join(cwd, 'taken'), 'mine')
      const { status, out } = create(cwd, ['taken', '--no-install'])
      expect(status).toBe(2)
      expect(out).toContain(`${join(cwd, 'taken')} exists and is a file, not a folder; nothing was written.`)
      expect(readFileSync(join(cwd, 'taken'), 'utf8')).toBe('mine')
    })

    it('an unknown template', () => {
      const cwd = scratch()
      const { status, out } = create(cwd, ['app', '--template', 'maximal', '--no-install'])
      expect(status).toBe(2)
      expect(out).toMatch(/unknown template "maximal"; choose one of: minimal, durable, oauth/)
      expect(readdirSync(cwd)).toEqual([])
    })

    it.each(['My_App', 'app-', 'a'.repeat(64), 'app.v2'])('a name no Worker may have (%s)', (name) => {
      const cwd = scratch()
      const { status, out } = create(cwd, [name, '--no-install'])
      expect(status).toBe(2)
      expect(out).toMatch(/cannot name a Worker and a package/)
      expect(readdirSync(cwd)).toEqual([])
    })

    it('no folder at all (and no terminal to ask on)', () => {
      const cwd = scratch()
      const { status, out } = create(cwd, ['--template', 'minimal'])
      expect(status).toBe(2)
      expect(out).toMatch(/name the folder to create/)
      expect(readdirSync(cwd)).toEqual([])
    })

    it('a --mcp-edge path that does not exist', () => {
      const cwd = scratch()
      const { status, out } = create(cwd, ['app', '--no-install', '--mcp-edge', './nowhere.tgz'])
      expect(status).toBe(2)
      expect(out).toMatch(/--mcp-edge \.\/nowhere\.tgz: no such file/)
      expect(readdirSync(cwd)).toEqual([])
    })
  })

  it('removes what it wrote when npm install fails (no registry to reach)', () => {
    const cwd = scratch()
    const { status, out } = create(cwd, ['offline'], {
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_fetch_retries: '0',
      npm_config_fetch_timeout: '2000',
      npm_config_prefer_offline: 'false',
      npm_config_cache: join(cwd, '.empty-cache'),
    })
    expect(status).toBe(1)
    expect(out).toMatch(/npm install failed .*is the npm registry reachable\? Removed /)
    expect(existsSync(join(cwd, 'offline'))).toBe(false)
  }, 60_000)
})
