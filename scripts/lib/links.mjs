/**
 * Where users start a template from, derived from one place: the root package.json's
 * `repository` (not decided yet; change it there) and its version (the tag `v<version>` every
 * link pins). The templates' READMEs carry these exact strings; test/unit/readme-links.test.ts
 * checks that they do, so a change of repository or version cannot leave one behind.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const root = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8'))
/** `owner/name` of the GitHub repository. */
export const REPOSITORY = /github\.com\/([^/]+\/[^/.]+)/.exec(root.repository.url)?.[1]
export const TAG = `v${root.version}`

/** The Deploy to Cloudflare button's URL for a template folder. */
export const deployUrl = (template) =>
  `https://deploy.workers.cloudflare.com/?url=https://github.com/${REPOSITORY}/tree/${TAG}/templates/${template}`

/** The create-cloudflare command that starts from the template at the pinned tag. */
export const c3Command = (template) =>
  `npm create cloudflare@latest my-mcp-server -- --template=${REPOSITORY}/templates/${template}#${TAG}`
