/**
 * `large_report`: a result far over any host's limit (docs/results.md). With the `results` option
 * the client receives the report's first 64 KiB and a `resource_link`; it reads the whole report,
 * page by page, through that link, and nobody else can. A task when the client declares the Tasks
 * extension, so a task's large result is cut the same way.
 */
import * as z from 'zod/mini'
import type { McpServer } from 'mcp-edge'

/** One line of the report: numbered, so a reader can check that nothing is missing or repeated. */
const line = (n: number) => `line ${String(n).padStart(7, '0')}: the quick brown fox jumps over the lazy dog, again.\n`

/** `kib` KiB of report text (ASCII, so bytes and characters agree), cut at exactly that size. */
export function reportText(kib: number): string {
  const bytes = kib * 1024
  const width = line(1).length
  const lines = Array.from({ length: Math.ceil(bytes / width) }, (_, i) => line(i + 1))
  return lines.join('').slice(0, bytes)
}

export function largeReport<E>(server: McpServer<E>): void {
  server.tool(
    'large_report',
    {
      description: 'A report of `kib` KiB of text: large ones arrive as a preview and a link to the whole report',
      input: z.object({ kib: z.int().check(z.minimum(1), z.maximum(8192)) }),
      annotations: { readOnlyHint: true, openWorldHint: false },
      task: 'optional',
    },
    ({ kib }) => ({ content: [{ type: 'text', text: reportText(kib) }] }),
  )
}
