/**
 * Bundles reported for their size only (not loaded): the demo in OAuth mode
 * (bench/workers/oauth/wrangler.jsonc) and each template as its own wrangler.jsonc builds it
 * (templates/<name>), beside the demo's. Minified, as the bench's Workers and the templates' own
 * configs are (`"minify": true`, `"keep_names": false`: what `wrangler deploy` uploads), and
 * unminified for comparison.
 */
import { join } from 'node:path'
import { ROOT } from './env.mjs'
import { templateBundleTargets } from './targets.mjs'

const KIB = 1024
export const TEMPLATES = ['minimal', 'durable', 'oauth']

/** Their builds, as jobs for buildAll (build.mjs): minified and unminified each. */
export function moreBundleJobs() {
  const jobs = [['oauth'], ['oauth', { minify: false }]]
  for (const template of TEMPLATES) {
    const config = join(ROOT, 'templates', template, 'wrangler.jsonc')
    jobs.push([`template-${template}`, { config }], [`template-${template}`, { config, minify: false }])
  }
  return jobs
}

/** The templates' minified builds alone, as jobs for buildAll (`--only bundles`). */
export function templateBundleJobs() {
  return moreBundleJobs().filter(([worker, options]) => worker.startsWith('template-') && options?.minify !== false)
}

/**
 * `--only bundles`: each template's Worker as its config deploys it (the figures
 * `wrangler deploy --dry-run` prints), beside its budget where it has one (targets.mjs).
 */
export function templateBundlesSection(bundles) {
  const verdicts = Object.fromEntries(templateBundleTargets(bundles).map((target) => [target.id, target]))
  const lines = TEMPLATES.filter((name) => bundles[`template-${name}`]).map((name) => {
    const { min } = bundles[`template-${name}`]
    const target = verdicts[`bundle${name[0]?.toUpperCase()}${name.slice(1)}`]
    const verdict = target
      ? ` (budget ≤ ${target.limit} KiB gzip: ${target.measured <= target.limit ? 'met' : `missed, ${target.gap()}`})`
      : ' (no budget)'
    return `- ${name}: ${(min.rawBytes / KIB).toFixed(2)} KiB, ${(min.gzipBytes / KIB).toFixed(2)} KiB gzip${verdict}`
  })
  return ["## The templates' bundles (`wrangler deploy --dry-run`, minified)", '', ...lines, ''].join('\n')
}

/** Sentences for results.md. */
export function moreBundlesLine(bundles) {
  if (!bundles.oauth) return ''
  const kib = (bytes) => (bytes / KIB).toFixed(2)
  const templates = TEMPLATES.filter((name) => bundles[`template-${name}`])
    .map((name) => {
      const { min, raw } = bundles[`template-${name}`]
      // A quick run builds them minified only (run.mjs).
      const unminified = raw ? ` (${kib(raw.gzipBytes)} KiB unminified)` : ''
      return `${name} ${kib(min.gzipBytes)} KiB gzip as its config deploys it, minified${unminified}`
    })
    .join('; ')
  return (
    `The demo in OAuth mode (apps/demo/src/worker-oauth.ts, its own authorization server) bundles to ` +
    `${kib(bundles.oauth.min.rawBytes)} KiB, ${kib(bundles.oauth.min.gzipBytes)} KiB gzip minified` +
    // A quick run builds it minified only (run.mjs).
    (bundles.oauth.raw ? ` (${kib(bundles.oauth.raw.gzipBytes)} KiB gzip unminified)` : '') +
    `, beside the demo's ` +
    `${kib(bundles.edge.min.gzipBytes)} KiB gzip. The templates: ${templates}.`
  )
}
