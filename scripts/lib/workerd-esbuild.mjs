/**
 * esbuild's options for a module that runs in workerd, as wrangler bundles a Worker: one ES
 * module, no platform built-ins assumed, the Workers' export conditions. Shared by the bench's
 * Node-side bundles (bench/lib/bundle.mjs) and the auxiliary Worker of the workers-aux test
 * project (vitest.config.ts).
 */
export const WORKERD_BUILD = Object.freeze({
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  conditions: ['workerd', 'worker', 'browser'],
  mainFields: ['module', 'main'],
  logLevel: 'error',
})
