/**
 * Forms from JSON Schema: a tool's `inputSchema`, a prompt's arguments, or an elicitation's
 * `requestedSchema`. One field per property: text, email, URL and date inputs for strings, number
 * inputs for numbers and integers (with their bounds), a checkbox for booleans, a select for
 * enums (`enum`, or `oneOf`/`anyOf` of `const` + `title`), a group of checkboxes for arrays of
 * enums, and a JSON text area for anything else. Each field has a label (with a required mark),
 * its description as a hint, its default filled in, and an inline error that names what is wrong;
 * invalid fields carry `aria-invalid` and point at the error with `aria-describedby`.
 */
import { append, h, uid } from './dom.ts'

export type JsonObject = Record<string, unknown>
type Read = { ok: true; value: unknown; present: boolean } | { ok: false }

interface Field {
  name: string
  element: HTMLElement
  focusable: HTMLElement
  read(): Read
}

export interface SchemaForm {
  element: HTMLElement
  /** Validate every field (showing errors inline); the arguments object when all are valid. */
  read(): { ok: true; value: JsonObject } | { ok: false }
  /** The first field, to move focus to. */
  first: HTMLElement | undefined
}

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value)

/** `{ const, title }` choices of a `oneOf`/`anyOf`, or the values of an `enum`. */
function choicesOf(schema: JsonObject): Array<{ value: unknown; label: string }> | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : []
    return schema.enum.map((value, i) => ({ value, label: String(names[i] ?? value) }))
  }
  const options = (schema.oneOf ?? schema.anyOf) as unknown
  if (Array.isArray(options) && options.length > 0 && options.every((option) => isObject(option) && 'const' in option)) {
    return options.map((option: JsonObject) => ({ value: option.const, label: String(option.title ?? option.const) }))
  }
  return undefined
}

/** The property's type, without `null` (a nullable field is an optional one here). */
function typeOf(schema: JsonObject): string | undefined {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type
  return typeof type === 'string' ? type : undefined
}

function numberError(value: number, schema: JsonObject, integer: boolean): string | undefined {
  if (Number.isNaN(value)) return integer ? 'Enter a whole number.' : 'Enter a number.'
  if (integer && !Number.isInteger(value)) return 'Enter a whole number.'
  if (typeof schema.minimum === 'number' && value < schema.minimum) return `Enter ${schema.minimum} or more.`
  if (typeof schema.maximum === 'number' && value > schema.maximum) return `Enter ${schema.maximum} or less.`
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum)
    return `Enter more than ${schema.exclusiveMinimum}.`
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum)
    return `Enter less than ${schema.exclusiveMaximum}.`
  return undefined
}

function stringError(value: string, schema: JsonObject, input: HTMLInputElement | HTMLTextAreaElement): string | undefined {
  if (typeof schema.minLength === 'number' && value.length < schema.minLength)
    return `Enter at least ${schema.minLength} character(s).`
  if (typeof schema.maxLength === 'number' && value.length > schema.maxLength)
    return `Enter at most ${schema.maxLength} characters.`
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) return `Use the form ${schema.pattern}.`
  if (input.validity.typeMismatch || input.validity.badInput) return `Enter a valid ${schema.format ?? 'value'}.`
  return undefined
}

const INPUT_TYPES: Record<string, string> = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' }

function field(name: string, schema: JsonObject, required: boolean, prefix: string): Field {
  const id = uid(`${prefix}-${name}`)
  const errorId = `${id}-error`
  const hintId = `${id}-hint`
  const error = h('p', { class: 'field-error', id: errorId, hidden: true })
  const description = typeof schema.description === 'string' ? schema.description : undefined
  const labelText = [
    String(schema.title ?? name),
    required ? h('span', { class: 'required', 'aria-hidden': 'true' }, ' *') : null,
  ]
  const type = typeOf(schema)
  const choices = choicesOf(schema)
  const itemChoices = type === 'array' && isObject(schema.items) ? choicesOf(schema.items) : undefined
  const fallback = schema.default
  let control: HTMLElement
  let focusable: HTMLElement
  let raw: () => Read | string

  if (itemChoices) {
    const boxes = itemChoices.map((choice, i) =>
      h('input', { type: 'checkbox', id: `${id}-${i}`, checked: Array.isArray(fallback) && fallback.includes(choice.value) }),
    )
    control = h(
      'fieldset',
      { class: 'choices', 'aria-describedby': description ? hintId : undefined },
      h('legend', {}, ...labelText),
      ...itemChoices.map((choice, i) => h('label', { for: `${id}-${i}` }, boxes[i], ` ${choice.label}`)),
    )
    focusable = boxes[0] ?? control
    raw = () => {
      const picked = itemChoices.filter((_, i) => boxes[i]?.checked).map((choice) => choice.value)
      if (typeof schema.minItems === 'number' && picked.length < schema.minItems) return `Pick at least ${schema.minItems}.`
      if (typeof schema.maxItems === 'number' && picked.length > schema.maxItems) return `Pick at most ${schema.maxItems}.`
      if (required && picked.length === 0) return 'Required.'
      return { ok: true, value: picked, present: picked.length > 0 || required }
    }
  } else if (type === 'boolean' && !choices) {
    const box = h('input', { type: 'checkbox', id, checked: fallback === true })
    control = h('label', { for: id, class: 'checkbox' }, box, ' ', ...labelText)
    focusable = box
    raw = () => ({ ok: true, value: box.checked, present: true })
  } else if (choices) {
    const select = h(
      'select',
      { id, required },
      !required || fallback === undefined ? h('option', { value: '' }, required ? 'Choose…' : '(none)') : null,
      ...choices.map((choice, i) => h('option', { value: String(i), selected: choice.value === fallback }, choice.label)),
    )
    control = select
    focusable = select
    raw = () => {
      if (select.value === '') return required ? 'Required.' : { ok: true, value: undefined, present: false }
      return { ok: true, value: choices[Number(select.value)]?.value, present: true }
    }
  } else if (type === 'number' || type === 'integer' || type === 'string') {
    const numeric = type !== 'string'
    const input = h('input', {
      id,
      name,
      type: numeric ? 'number' : (INPUT_TYPES[String(schema.format)] ?? 'text'),
      step: numeric ? (type === 'integer' ? 1 : 'any') : undefined,
      min: numeric ? (schema.minimum as number | undefined) : undefined,
      max: numeric ? (schema.maximum as number | undefined) : undefined,
      minlength: numeric ? undefined : (schema.minLength as number | undefined),
      maxlength: numeric ? undefined : (schema.maxLength as number | undefined),
      value: fallback === undefined ? undefined : String(fallback),
      required,
      autocomplete: 'off',
    })
    control = input
    focusable = input
    raw = () => {
      if (input.value === '' && !input.validity.badInput) {
        return required ? 'Required.' : { ok: true, value: undefined, present: false }
      }
      if (!numeric) return stringError(input.value, schema, input) ?? { ok: true, value: input.value, present: true }
      const value = input.validity.badInput ? Number.NaN : Number(input.value)
      return numberError(value, schema, type === 'integer') ?? { ok: true, value, present: true }
    }
  } else {
    const area = h(
      'textarea',
      { id, rows: 3, required, spellcheck: 'false' },
      fallback === undefined ? '' : JSON.stringify(fallback),
    )
    control = area
    focusable = area
    raw = () => {
      if (area.value.trim() === '') return required ? 'Required.' : { ok: true, value: undefined, present: false }
      try {
        return { ok: true, value: JSON.parse(area.value), present: true }
      } catch {
        return 'Enter valid JSON.'
      }
    }
  }

  const wrapper = h('div', { class: 'field' })
  const labelled = control.tagName === 'FIELDSET' || control.classList.contains('checkbox')
  if (!labelled) {
    append(
      wrapper,
      h('div', {}, h('label', { for: id }, ...labelText), type && !choices ? h('span', { class: 'type' }, ` ${type}`) : null),
    )
  }
  append(wrapper, control, description ? h('p', { class: 'hint', id: hintId }, description) : null, error)
  const target = labelled && control.tagName !== 'FIELDSET' ? focusable : control
  const described = (extra?: string) => [description ? hintId : '', extra ?? ''].filter(Boolean).join(' ')
  if (described()) target.setAttribute('aria-describedby', described())
  if (required) target.setAttribute('aria-required', 'true')

  const read = (): Read => {
    const result = raw()
    const message = typeof result === 'string' ? result : undefined
    error.textContent = message ?? ''
    error.hidden = message === undefined
    if (message) target.setAttribute('aria-invalid', 'true')
    else target.removeAttribute('aria-invalid')
    const describedBy = described(message ? errorId : undefined)
    if (describedBy) target.setAttribute('aria-describedby', describedBy)
    else target.removeAttribute('aria-describedby')
    return typeof result === 'string' ? { ok: false } : result
  }
  // Errors appear when the form is submitted and update as the user corrects the field. Not on
  // blur: an error appearing then moves the submit button away from the pointer mid-click.
  wrapper.addEventListener('input', () => {
    if (target.hasAttribute('aria-invalid')) read()
  })
  return { name, element: wrapper, focusable, read }
}

/**
 * @example
 * const form = schemaForm(tool.inputSchema, 'tool-add')
 * const args = form.read(); if (args.ok) call(args.value)
 */
export function schemaForm(schema: JsonObject, prefix: string): SchemaForm {
  const properties = isObject(schema.properties) ? schema.properties : {}
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : [])
  const fields = Object.entries(properties)
    .filter((entry): entry is [string, JsonObject] => isObject(entry[1]))
    .map(([name, property]) => field(name, property, required.has(name), prefix))
  const element = h('div', { class: 'fields' }, ...fields.map((f) => f.element))
  if (fields.length === 0) append(element, h('p', { class: 'hint' }, 'No arguments.'))
  return {
    element,
    first: fields[0]?.focusable,
    read() {
      const value: JsonObject = {}
      let ok = true
      let firstInvalid: HTMLElement | undefined
      for (const f of fields) {
        const result = f.read()
        if (!result.ok) {
          ok = false
          firstInvalid ??= f.focusable
        } else if (result.present) value[f.name] = result.value
      }
      firstInvalid?.focus()
      return ok ? { ok: true, value } : { ok: false }
    },
  }
}
