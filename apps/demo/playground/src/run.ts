/**
 * One tool call on the page, from the click to its outcome: partial results listed as they
 * arrive (each with its `seq`, gaps named), progress as a progress bar, log messages, the MRTR
 * loop (each `input_required` round asks the user, then the call is retried), and the result, an
 * error, or a task handle that `followTask` takes over. Cancel aborts the request, which closes
 * the stream: for the server that is the cancellation (streamable-http), and the tool's
 * `ctx.signal` aborts.
 */
import type { ToolCallEvent } from 'mcp-edge/client'
import { ask } from './ask.ts'
import { append, h } from './dom.ts'
import { chunkItem, errorBox, toolResult } from './render.ts'
import type { JsonObject } from './schema-form.ts'
import type { Session } from './session.ts'
import { followTask } from './task.ts'
import { mountView } from './view.ts'

let runs = 0

/**
 * @example
 * runTool(session, tool, { topic: 'owls' }, card.querySelector('.runs'))
 */
export async function runTool(session: Session, tool: JsonObject, args: JsonObject, into: HTMLElement): Promise<void> {
  const name = String(tool.name)
  const number = ++runs
  const controller = new AbortController()
  const status = h('p', { class: 'status', role: 'status' }, `Calling ${name}…`)
  const progress = h('progress', { 'aria-label': `Progress of ${name}`, hidden: true })
  const progressText = h('span', { class: 'progress-text' })
  const chunks = h('ol', { class: 'chunks', 'aria-label': 'Partial results', hidden: true })
  const log = h('ul', { class: 'log', 'aria-label': 'Log messages', hidden: true })
  const asks = h('div', { class: 'asks' })
  const outcome = h('div', { class: 'outcome' })
  const cancel = h('button', { type: 'button', class: 'secondary cancel', onclick: () => controller.abort() }, 'Cancel')
  const run = h(
    'section',
    { class: 'run', 'aria-label': `Call ${number}: ${name}`, 'data-run': name, 'data-state': 'running' },
    h('h4', {}, `Call ${number}: ${name}`, h('code', { class: 'args' }, ` ${JSON.stringify(args)}`)),
    status,
    // Above what streams in, so it stays where it is while partial results arrive.
    cancel,
    h('div', { class: 'progress' }, progress, progressText),
    chunks,
    log,
    asks,
    outcome,
  )
  into.prepend(run)
  // A tool with a view (MCP Apps): rendered under the call, fed its input, partials and result.
  const view = mountView(session, tool, args, run)
  const started = performance.now()
  let received = 0

  const onEvent = (event: ToolCallEvent, round: number) => {
    if (event.type === 'partial' || event.type === 'gap') {
      chunks.hidden = false
      chunks.appendChild(chunkItem(event, round > 0 ? `round ${round}` : undefined))
      if (event.type === 'partial') {
        status.textContent = `Streaming: ${++received} partial result(s) so far`
        view?.partial(event)
      }
      return
    }
    const params = event.params
    if (event.method === 'notifications/progress') {
      progress.hidden = false
      if (typeof params.total === 'number') progress.max = params.total
      progress.value = Number(params.progress)
      progressText.textContent = ` ${params.progress}${typeof params.total === 'number' ? ` / ${params.total}` : ''} ${params.message ?? ''}`
    } else if (event.method === 'notifications/message') {
      log.hidden = false
      append(
        log,
        h('li', {}, `${String(params.level)}: ${typeof params.data === 'string' ? params.data : JSON.stringify(params.data)}`),
      )
    }
  }

  try {
    const result = await session.client.callTool(name, args, {
      inputSchema: tool.inputSchema as JsonObject,
      capabilities: session.capabilities(),
      signal: controller.signal,
      onEvent,
      answer: (requests) => {
        status.textContent = `${name} asks for input`
        return ask(asks, requests)
      },
    })
    if (result.resultType === 'task') {
      status.textContent = `${name} runs as a task`
      cancel.remove()
      run.dataset.state = 'task'
      await followTask(session, result, outcome)
      return
    }
    status.textContent = `Completed in ${Math.round(performance.now() - started)} ms${received ? ` after ${received} partial result(s)` : ''}`
    outcome.appendChild(toolResult(result))
    view?.result(result)
    run.dataset.state = 'complete'
  } catch (error) {
    if (controller.signal.aborted) {
      status.textContent = `Cancelled: the stream was closed after ${received} partial result(s); the server stops the call`
      run.dataset.state = 'cancelled'
      view?.cancelled('the user cancelled the call')
    } else {
      status.textContent = `${name} failed`
      outcome.appendChild(errorBox(error))
      run.dataset.state = 'error'
      view?.result({ content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }], isError: true })
      session.onError(error)
    }
  } finally {
    cancel.remove()
  }
}
