/**
 * Questions a server asks (MRTR `inputRequests`, or a task's in `input_required`), shown to the
 * user: a form elicitation becomes a form built from its `requestedSchema`, with Submit (accept),
 * Decline and Cancel; a URL elicitation becomes a link to open, then Done (accept), Decline or
 * Cancel. Resolves with the answers under the server's keys once every question is answered.
 * The page declares only elicitation, so sampling and roots requests are shown as unsupported.
 */
import { append, h, uid } from './dom.ts'
import { schemaForm } from './schema-form.ts'
import type { JsonObject } from './schema-form.ts'

type Answer = JsonObject

function buttons(onAnswer: (action: 'decline' | 'cancel') => void, accept: HTMLButtonElement): HTMLElement {
  return h(
    'div',
    { class: 'actions' },
    accept,
    h('button', { type: 'button', class: 'secondary', onclick: () => onAnswer('decline') }, 'Decline'),
    h('button', { type: 'button', class: 'secondary', onclick: () => onAnswer('cancel') }, 'Cancel'),
  )
}

function formQuestion(key: string, params: JsonObject, done: (answer: Answer) => void) {
  const messageId = uid(`ask-${key}`)
  const fields = schemaForm((params.requestedSchema ?? {}) as JsonObject, `ask-${key}`)
  const form = h('form', { class: 'ask', 'aria-labelledby': messageId, novalidate: true, 'data-ask': key })
  const finish = (answer: Answer) => {
    for (const control of form.querySelectorAll<HTMLInputElement | HTMLButtonElement>('input, select, textarea, button')) {
      control.disabled = true
    }
    append(form, h('p', { class: 'answered', role: 'status' }, `Answered: ${String(answer.action)}`))
    done(answer)
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const read = fields.read()
    if (read.ok) finish({ action: 'accept', content: read.value })
  })
  append(
    form,
    h('p', { id: messageId, class: 'ask-message' }, String(params.message ?? 'The server asks:')),
    fields.element,
    buttons((action) => finish({ action }), h('button', { type: 'submit' }, 'Submit')),
  )
  return { element: form, focus: fields.first ?? form.querySelector('button') }
}

function urlQuestion(key: string, params: JsonObject, done: (answer: Answer) => void) {
  const url = String(params.url ?? '')
  const safe = /^https?:\/\//i.test(url)
  const box = h('div', { class: 'ask', role: 'group', 'aria-label': 'The server asks you to open a page', 'data-ask': key })
  const finish = (answer: Answer) => {
    for (const button of box.querySelectorAll('button')) button.disabled = true
    append(box, h('p', { class: 'answered', role: 'status' }, `Answered: ${String(answer.action)}`))
    done(answer)
  }
  const link = safe ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, url) : h('code', {}, url)
  append(
    box,
    h('p', { class: 'ask-message' }, String(params.message ?? 'Open this page:')),
    h('p', {}, link),
    buttons((action) => finish({ action }), h('button', { type: 'button', onclick: () => finish({ action: 'accept' }) }, 'Done')),
  )
  return { element: box, focus: link }
}

/**
 * @example
 * const inputResponses = await ask(panel, result.inputRequests)
 */
export function ask(container: HTMLElement, inputRequests: JsonObject): Promise<JsonObject> {
  const answers: JsonObject = {}
  const keys = Object.keys(inputRequests)
  return new Promise((resolve) => {
    const done = (key: string) => (answer: Answer) => {
      answers[key] = answer
      if (keys.every((k) => k in answers)) resolve(answers)
    }
    let focus: HTMLElement | null | undefined
    for (const key of keys) {
      const request = (inputRequests[key] ?? {}) as JsonObject
      const params = (request.params ?? {}) as JsonObject
      if (request.method !== 'elicitation/create') {
        append(
          container,
          h('p', { class: 'error' }, `The server asked for ${String(request.method)}, which this page does not support.`),
        )
        continue
      }
      const question = params.mode === 'url' ? urlQuestion(key, params, done(key)) : formQuestion(key, params, done(key))
      container.appendChild(question.element)
      focus ??= question.focus
    }
    focus?.focus()
  })
}
