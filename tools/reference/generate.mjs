#!/usr/bin/env node
/**
 * Writes packages/mcp-edge/docs/reference.md from the built declarations (`npm run build` first):
 * every name each entry point exports, its kind, its signature as a consumer's TypeScript sees
 * it, and its doc comment with the first `@example`. `--check` writes nothing and fails when the
 * file differs from what the declarations give (a step of `npm test`), so the reference cannot
 * drift from the code. TypeScript 5.9's compiler API reads the declarations.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), '../../packages/mcp-edge')
const OUT = join(PACKAGE, 'docs/reference.md')
const ENTRIES = [
  ['mcp-edge', 'dist/index.d.ts'],
  ['mcp-edge/cloudflare', 'dist/cloudflare/index.d.ts'],
  ['mcp-edge/client', 'dist/client/index.d.ts'],
  ['mcp-edge/oauth', 'dist/oauth/index.d.ts'],
]

const program = ts.createProgram(
  ENTRIES.map(([, file]) => join(PACKAGE, file)),
  { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, noEmit: true, types: [] },
)
const checker = program.getTypeChecker()

function kindOf(symbol) {
  const flags = symbol.flags
  if (flags & ts.SymbolFlags.Class) return 'class'
  if (flags & ts.SymbolFlags.Function) return 'function'
  if (flags & ts.SymbolFlags.Interface) return 'interface'
  if (flags & ts.SymbolFlags.TypeAlias) return 'type'
  if (flags & ts.SymbolFlags.Variable) return 'const'
  return 'export'
}

/** The declaration as written, without its doc comment and bodies: what an editor's hover shows. */
function signatureOf(symbol, kind) {
  const declaration = symbol.declarations?.[0]
  if (!declaration) return ''
  if (kind === 'function') {
    return symbol.declarations
      .map((node) => `function ${symbol.name}${node.getText().replace(/^[^(<]*/, '').replace(/;\s*$/, '')}`)
      .join('\n')
  }
  if (kind === 'const') return `const ${symbol.name}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, declaration), undefined, ts.TypeFormatFlags.NoTruncation)}`
  if (kind === 'class') {
    const members = declaration.members
      .filter((member) => !member.name || !ts.isPrivateIdentifier(member.name))
      .filter((member) => !(ts.getCombinedModifierFlags(member) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)))
      .map((member) => `  ${member.getText().replace(/\s*\n\s*/g, ' ')}`)
    const heading = declaration.getText().slice(0, declaration.getText().indexOf('{')).trim()
    return `${heading.replace(/^export\s+(declare\s+)?/, '')} {\n${members.join('\n')}\n}`
  }
  return declaration.getText().replace(/^export\s+(declare\s+)?/, '')
}

function docsOf(symbol) {
  const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim()
  const example = symbol
    .getJsDocTags(checker)
    .find((tag) => tag.name === 'example')
    ?.text?.map((part) => part.text)
    .join('')
    .trim()
  return { text, example }
}

let out = `# Reference

Every name the package exports, from its built declarations (\`tools/reference/generate.mjs\`
writes this file; \`npm test\` fails when it is stale). Signatures are as your editor shows them;
the how-to guides in this folder show them in use.
`
for (const [specifier, file] of ENTRIES) {
  const source = program.getSourceFile(join(PACKAGE, file))
  const moduleSymbol = checker.getSymbolAtLocation(source)
  const exported = checker.getExportsOfModule(moduleSymbol).sort((a, b) => a.name.localeCompare(b.name))
  out += `\n## \`${specifier}\`\n`
  for (const alias of exported) {
    const symbol = alias.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(alias) : alias
    const kind = kindOf(symbol)
    const { text, example } = docsOf(symbol)
    out += `\n### \`${alias.name}\` (${kind})\n\n`
    if (text) out += `${text}\n\n`
    // `typescript`, not `ts`: a declaration is not a module to compile (the pack check compiles
    // the `ts` blocks of the docs), and it comes from compiled declarations anyway.
    out += `\`\`\`typescript\n${signatureOf(symbol, kind)}\n\`\`\`\n`
    if (example) out += `\nExample:\n\n\`\`\`text\n${example}\n\`\`\`\n`
  }
}

if (process.argv.includes('--check')) {
  const current = readFileSync(OUT, 'utf8')
  if (current !== out) {
    console.error('packages/mcp-edge/docs/reference.md is stale: run `npm run reference` (after `npm run build`) and commit it.')
    process.exit(1)
  }
  console.log('docs/reference.md is current')
} else {
  writeFileSync(OUT, out)
  console.log(`wrote ${OUT}`)
}
