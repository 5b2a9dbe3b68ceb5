// ESM resolve hook: inside @modelcontextprotocol/conformance only, `fs` resolves to fs-glob.mjs.
const shim = new URL('./fs-glob.mjs', import.meta.url).href

export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/')) {
    return { url: shim, shortCircuit: true }
  }
  return next(specifier, context)
}
