/**
 * A task on the page (Tasks extension): its status live from a `subscriptions/listen` stream on
 * its id (the current state first, then every change), its partial results live on the same
 * stream and replayed from the task's log (`tasks/get` with `dev.mcp-edge/partialLog`), so chunks
 * written before the stream opened are shown too, in `seq` order, each once. Questions asked
 * mid-task (`input_required`) become forms answered with `tasks/update`; Cancel sends
 * `tasks/cancel`. A stream that drops before the task settles is opened again.
 */
import { PartialResultReader } from 'mcp-edge/client'
import { TASK_PARTIALS_FILTER } from 'mcp-edge'
import { ask } from './ask.ts'
import { h } from './dom.ts'
import { chunkItem, errorBox, toolResult } from './render.ts'
import type { JsonObject } from './schema-form.ts'
import type { Session } from './session.ts'

const TERMINAL = new Set(['completed', 'failed', 'cancelled'])
const MAX_RECONNECTS = 5

export async function followTask(session: Session, handle: JsonObject, into: HTMLElement): Promise<void> {
  const taskId = String(handle.taskId)
  const capabilities = session.capabilities({ tasks: true })
  const status = h(
    'p',
    { class: 'task-status', role: 'status', 'data-status': String(handle.status) },
    `Status: ${handle.status}`,
  )
  const log = h('ol', { class: 'chunks log', 'aria-label': 'Partial log', hidden: true })
  const logTitle = h('h5', { hidden: true }, 'Partial log')
  const asks = h('div', { class: 'asks' })
  const outcome = h('div', { class: 'outcome' })
  const cancel = h('button', { type: 'button', class: 'secondary cancel' }, 'Cancel task')
  into.appendChild(
    h(
      'div',
      { class: 'task', 'data-task-id': taskId },
      h('h5', {}, 'Task ', h('code', {}, taskId)),
      status,
      logTitle,
      log,
      asks,
      outcome,
      cancel,
    ),
  )
  const asked = new Set<string>()
  let reader: PartialResultReader | undefined
  let terminal = false

  const append = (event: Parameters<typeof chunkItem>[0], origin: string) => {
    logTitle.hidden = log.hidden = false
    log.appendChild(chunkItem(event, origin))
  }
  const show = (params: JsonObject, origin: string) => {
    reader ??= new PartialResultReader(params.partialResultToken as string, { maxBuffered: 1000 })
    for (const event of reader.accept(params)) append(event, origin)
  }
  const replay = async () => {
    for (let from = reader?.nextSeq ?? 0; ; ) {
      const { log: page } = await session.client.taskLog(taskId, from, 1000, { capabilities })
      for (const item of page.items) show(item, 'log')
      if (page.complete || page.items.length === 0 || page.nextSeq <= from) return
      from = page.nextSeq
    }
  }
  const apply = (task: JsonObject) => {
    status.dataset.status = String(task.status)
    status.textContent = `Status: ${task.status}${task.statusMessage ? ` (${task.statusMessage})` : ''}`
    const requests = (task.inputRequests ?? {}) as JsonObject
    const fresh = Object.fromEntries(Object.entries(requests).filter(([key]) => !asked.has(key)))
    if (task.status === 'input_required' && Object.keys(fresh).length > 0) {
      for (const key of Object.keys(fresh)) asked.add(key)
      void ask(asks, fresh)
        .then((inputResponses) => session.client.request('tasks/update', { taskId, inputResponses }, { capabilities }))
        .catch((error) => asks.appendChild(errorBox(error)))
    }
    if (!TERMINAL.has(String(task.status)) || terminal) return
    terminal = true
    cancel.remove()
    if (task.status === 'completed') outcome.appendChild(toolResult((task.result ?? {}) as JsonObject))
    else if (task.status === 'failed') outcome.appendChild(errorBox(task.error ?? task.statusMessage))
  }
  cancel.addEventListener('click', () => {
    cancel.disabled = true
    session.client.request('tasks/cancel', { taskId }, { capabilities }).catch((error) => outcome.appendChild(errorBox(error)))
  })

  try {
    for (let attempt = 0; !terminal && attempt <= MAX_RECONNECTS; attempt++) {
      const filter = { taskIds: [taskId], [TASK_PARTIALS_FILTER]: true }
      for await (const note of session.client.listen(filter, { capabilities })) {
        if (note.method === 'notifications/subscriptions/acknowledged') await replay()
        else if (note.method === 'notifications/tasks') apply(note.params)
        else if (note.method === 'notifications/tools/partial_result') show(note.params, 'live')
      }
    }
    if (!terminal) apply(await session.client.request('tasks/get', { taskId }, { capabilities }))
    // Anything logged after the last live chunk, then the gaps that remain.
    await replay()
    for (const event of reader?.finish() ?? []) append(event, 'log')
  } catch (error) {
    outcome.appendChild(errorBox(error))
    session.onError(error)
  }
}
