/**
 * esbuild (the copy wrangler uses) for the Node side of the bench: TS modules of bench/workers/
 * (and the built package's modules) are bundled into TMP first (unminified), with the Workers'
 * export conditions.
 */
import { isAbsolute, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { WORKERD_BUILD } from '../../scripts/lib/workerd-esbuild.mjs'
import { ROOT, TMP } from './env.mjs'

/** Bundle `entry` (absolute, or relative to the repo root) into TMP; returns the output path. */
export async function bundle(entry, name) {
  const outfile = join(TMP, 'node', `${name}.mjs`)
  await build({
    entryPoints: [isAbsolute(entry) ? entry : join(ROOT, entry)],
    outfile,
    absWorkingDir: ROOT,
    ...WORKERD_BUILD,
  })
  return outfile
}

/** Bundle and import a TS module. */
export async function importTs(entry, name) {
  return import(pathToFileURL(await bundle(entry, name)).href)
}
