/**
 * The template's door to the playground page (playground/, README "Playground"): the page is a
 * Workers Static Asset, built by `playground/build.mjs` and never part of this script's
 * bundle. `run_worker_first = true` sends every request here first, so an asset is served only
 * when this says so: with `PLAYGROUND = "on"`, which `.dev.vars` sets for `wrangler dev` and a
 * deploy does not carry. Otherwise the page does not exist (404), even though its files were
 * uploaded. Template code, not part of the runtime.
 */
import type { Context } from 'hono'

export interface PlaygroundEnv {
  /** The static assets binding (`[assets] binding = "ASSETS"`). */
  ASSETS?: Fetcher
  /** "on" serves the playground; anything else, or nothing, hides it. */
  PLAYGROUND?: string
}

/**
 * Serve a playground asset when the playground is on.
 *
 * @example
 * app.get('/playground/*', playground)
 */
export const playground = (c: Context<{ Bindings: PlaygroundEnv }>) =>
  c.env.PLAYGROUND === 'on' && c.env.ASSETS ? c.env.ASSETS.fetch(c.req.raw) : c.notFound()
