/**
 * The SDK-style fixtures' one rule (test/fixture-sdk): where the original code imports from the
 * official SDK or agents, the fixture imports from `mcp-edge/sdk`, and the line says what it
 * replaced (`// was: <original specifier>`). `putBack` restores the originals, for the type test
 * (test/unit/sdk-fixture-types.test.ts) and the migration guide's check.
 */

const ORIGINALS = [
  '@modelcontextprotocol/ext-apps/server',
  '@modelcontextprotocol/sdk/server/index.js',
  '@modelcontextprotocol/sdk/server/mcp.js',
  '@modelcontextprotocol/sdk/shared/protocol.js',
  '@modelcontextprotocol/sdk/types.js',
  '@modelcontextprotocol/sdk/validation/cfworker',
  '@modelcontextprotocol/server',
  'agents',
  'agents/mcp',
  'agents/mcp/server',
]
const IMPORT = /^(import .* from )'mcp-edge\/sdk'(?: \/\/ was: (\S+))?$/

/** `source` (a file named `file`) with each mcp-edge/sdk import back on its original specifier. */
export function putBack(source: string, file: string): string {
  return source
    .split('\n')
    .map((line, index) => {
      if (!line.includes("'mcp-edge/sdk'")) return line
      const [, head, original] = IMPORT.exec(line) ?? []
      if (!original || !ORIGINALS.includes(original))
        throw new Error(`${file}:${index + 1}: no known '// was:' original: ${line}`)
      return `${head}'${original}'`
    })
    .join('\n')
}
