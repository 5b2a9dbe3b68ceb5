/**
 * The OAuth template mode's bundle (src/worker-oauth.ts with @cloudflare/workers-oauth-provider,
 * bench/workers/oauth/wrangler.jsonc), reported beside the default template's. Size only: it is not loaded.
 */
import { build } from './build.mjs'

const KIB = 1024

export function buildOauth() {
  return { min: build('oauth'), raw: build('oauth', { minify: false }) }
}

/** One sentence for results.md. */
export function oauthBundleLine(bundles) {
  if (!bundles.oauth) return ''
  const kib = (bytes) => (bytes / KIB).toFixed(2)
  return (
    `The template in OAuth mode (src/worker-oauth.ts, its own authorization server) bundles to ` +
    `${kib(bundles.oauth.min.rawBytes)} KiB, ${kib(bundles.oauth.min.gzipBytes)} KiB gzip minified ` +
    `(${kib(bundles.oauth.raw.gzipBytes)} KiB gzip unminified), beside the default template's ` +
    `${kib(bundles.edge.min.gzipBytes)} KiB gzip.`
  )
}
