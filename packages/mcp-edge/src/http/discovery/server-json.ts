/**
 * The MCP registry's `server.json` (registry.modelcontextprotocol.io, schema 2025-12-11), built
 * from the server's identity, and the part of it the Server Card shares: the card's format derives
 * from server.json, so both take their name, title, description, version, website, icons and
 * repository from `describeServer`, checked the same way. It builds the document only: publishing
 * is the registry's `mcp-publisher` CLI, which reads a `server.json` file.
 */
import type { Icon } from '../../protocol/types.ts'
import type { McpServer } from '../../server/server.ts'

const REGISTRY_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json'

/** The identity discovery documents are built from. */
export type Identity = McpServer['info']

/** What a listing of the server needs beyond its identity (the Server Card's and server.json's). */
export interface ServerListingOptions {
  /** The server's name in reverse-DNS form, one slash: `com.example/weather`, `io.github.<user>/weather`. */
  name: string
  /** One line (at most 100 characters) on what the server does; default: the server's `description`. */
  description?: string
  /** Where its source is (`{ url, source: 'github' }`). */
  repository?: { url: string; source: string; id?: string; subfolder?: string }
}

/** A header clients must send to the remote, as the registry describes one (its `KeyValueInput`). */
export interface RegistryHeader {
  name: string
  description?: string
  /** Clients must send it. */
  isRequired?: boolean
  /** Clients keep the value as a secret (a token). */
  isSecret?: boolean
}

export interface RegistryServerJsonOptions extends ServerListingOptions {
  /** The deployed MCP endpoint's https: URL, such as `https://notes.example.workers.dev/mcp`. */
  url: string
  /** Headers clients must send, such as a bearer token's `Authorization`. */
  headers?: RegistryHeader[]
}

/** A `server.json` describing one remote server. */
export interface RegistryServerJson {
  $schema: string
  name: string
  title?: string
  description: string
  version: string
  websiteUrl?: string
  icons?: Icon[]
  repository?: ServerListingOptions['repository']
  remotes: { type: 'streamable-http'; url: string; headers?: RegistryHeader[] }[]
}

const NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/
/** The schema's `^https?://[^\s]+$`, less plain http: a listed server is one anybody connects to. */
const REMOTE_URL = /^https:\/\/[^\s/?#]+(?:[/?#]\S*)?$/

/** The listing fields both documents share, or an Error naming `label` and what to set. */
export function describeServer(info: Identity, options: ServerListingOptions, label: string) {
  if (!NAME.test(options.name) || options.name.length > 200) {
    throw new Error(`${label}: name must be reverse-DNS with one slash, such as com.example/weather, not "${options.name}"`)
  }
  const description = options.description ?? info.description
  if (!description || description.length > 100) {
    throw new Error(
      `${label}: a description of 1 to 100 characters is required (its description option, or the server's description)`,
    )
  }
  return {
    name: options.name,
    ...(info.title === undefined ? {} : { title: info.title.slice(0, 100) }),
    description,
    version: info.version,
    ...(info.websiteUrl === undefined ? {} : { websiteUrl: info.websiteUrl }),
    ...(info.icons === undefined ? {} : { icons: info.icons }),
    ...(options.repository === undefined ? {} : { repository: options.repository }),
  }
}

/**
 * The registry's `server.json` for this server, deployed at `url`: its identity's title, version,
 * website and https: icons (the registry takes no `data:` icon), one `streamable-http` remote.
 * Throws, saying what to set, when the name, description or URL would not be accepted. Write it
 * to the project's `server.json`, and publish that with `mcp-publisher publish`.
 *
 * @example
 * const json = registryServerJson(server, {
 *   name: 'io.github.you/notes',
 *   description: 'Notes you can add, list and search',
 *   url: 'https://notes.you.workers.dev/mcp',
 * })
 */
export function registryServerJson(server: Pick<McpServer, 'info'>, options: RegistryServerJsonOptions): RegistryServerJson {
  const { icons, ...described } = describeServer(server.info, options, 'registryServerJson')
  if (!REMOTE_URL.test(options.url)) {
    throw new Error(
      `registryServerJson: url must be the deployed endpoint's https: URL, such as https://notes.example.workers.dev/mcp, not "${options.url}"`,
    )
  }
  const listed = icons?.filter((icon) => icon.src.startsWith('https:')) ?? []
  const remote = { type: 'streamable-http' as const, url: options.url }
  return {
    $schema: REGISTRY_SCHEMA,
    ...described,
    ...(listed.length === 0 ? {} : { icons: listed }),
    remotes: [options.headers === undefined ? remote : { ...remote, headers: options.headers }],
  }
}
