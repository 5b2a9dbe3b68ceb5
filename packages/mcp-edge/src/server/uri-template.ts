/**
 * RFC 6570 URI templates, matching direction only: given a template such as
 * `test://template/{id}/data` or `file:///{+path}{?rev}`, tell whether a URI fits and pull out the
 * variables. Compiled once when the resource template is registered. Supports the level 1–3
 * operators a resource URI uses (none, `+`, `#`, `/`, `.`, `;`, `?`, `&`); explode and prefix
 * modifiers are accepted and matched as plain values.
 *
 * `matchWithQuery` is the SDKs' looser match, for a URI no template matches: a lone `{var}` or
 * `{+var}` that ends a template with no query of its own takes the URI's query and fragment too
 * (`ref://item/{spec}` reads `ref://item/abc?x=1` as `abc?x=1`). The path part is matched and
 * checked as `match` does; the query and fragment are appended as sent.
 *
 * Path safety: only reserved expansion (`{+var}`, `{#var}`) may span path segments. Any other
 * variable never matches across a `/`, and a value that decodes to contain `/` or `\`, or to be a
 * `.` or `..` segment, does not match at all (so `{name}` never hands a handler `../../etc/passwd`;
 * the next template is tried, then -32602).
 */

export interface UriTemplate {
  readonly template: string
  readonly variables: readonly string[]
  /** The variables of `uri`, or `undefined` when it does not fit the template. */
  match(uri: string): Record<string, string> | undefined
  /** `match`, with the URI's query and fragment given to a lone variable that ends the template (module header). */
  matchWithQuery(uri: string): Record<string, string> | undefined
}

/** A template's last expression, when it is a lone `{var}` or `{+var}` and the template has no query or fragment of its own. */
const OPEN_TAIL = /^[^?#]*\{\+?([^},]+)\}$/

const EXPRESSION = /\{([+#./;?&]?)([^}]+)\}/g

/** Per operator: the text before the first value, the text between values, and what a value may contain. */
const OPERATORS: Record<string, [first: string, separator: string, value: string]> = {
  '': ['', ',', '[^/?#,]+'],
  '+': ['', ',', '[^?#,]+'],
  '#': ['#', ',', '[^?#,]+'],
  '.': ['.', '.', '[^/?#.,]+'],
  '/': ['/', '/', '[^/?#,]+'],
  // Path-style parameters are named: `;x=1;y=2` (a value never holds `=`).
  ';': [';', ';', '[^/?#;,=]*'],
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

const UNSAFE_SEGMENT = /[/\\]|^\.{1,2}$/

/** A decoded value that could walk a path: contains a separator, or is a dot segment. */
function isUnsafe(value: string): boolean {
  return UNSAFE_SEGMENT.test(value)
}

/**
 * Compile a template for matching. The first variable of each path expression is required;
 * the others, and query variables, are optional.
 *
 * @example
 * compileUriTemplate('test://template/{id}/data').match('test://template/7/data') // { id: '7' }
 */
export function compileUriTemplate(template: string): UriTemplate {
  const variables: string[] = []
  const groups: { name: string; query: boolean; reserved: boolean }[] = []
  let pattern = '^'
  let last = 0
  for (const found of template.matchAll(EXPRESSION)) {
    pattern += escapeRegExp(template.slice(last, found.index))
    last = found.index + found[0].length
    const operator = found[1] ?? ''
    const names = (found[2] ?? '').split(',').map((name) => name.replace(/(\*|:\d+)$/, '').trim())
    variables.push(...names)
    if (operator === '?' || operator === '&') {
      // Query parameters are matched by name below, in any order; here only the text is consumed.
      pattern += operator === '?' ? '(?:\\?([^#]*))?' : '(?:&([^#]*))?'
      groups.push({ name: names.join(','), query: true, reserved: false })
      continue
    }
    const [first, separator, rule] = OPERATORS[operator] as (typeof OPERATORS)[string]
    // A lone reserved variable may contain its own separator (`{+path}` matches `a/b,c`).
    const value = names.length === 1 && (operator === '+' || operator === '#') ? '[^?#]+' : rule
    names.forEach((name, index) => {
      const lead = escapeRegExp(index === 0 ? first : separator)
      // The whole name, then `=` and the value, or nothing for an empty one (`;x`): `;xy=1` is not x.
      const label = operator === ';' ? `${escapeRegExp(name)}(?![\\w%])=?` : ''
      const part = `${lead}${label}(${value})`
      pattern += index === 0 ? part : `(?:${part})?`
      groups.push({ name, query: false, reserved: operator === '+' || operator === '#' })
    })
  }
  pattern += `${escapeRegExp(template.slice(last))}$`
  const regex = new RegExp(pattern)

  const tail = OPEN_TAIL.exec(template)?.[1]
    ?.replace(/(\*|:\d+)$/, '')
    .trim()
  const compiled: UriTemplate = {
    template,
    variables,
    matchWithQuery(uri) {
      const cut = uri.search(/[?#]/)
      if (tail === undefined || cut < 0) return undefined
      const variables = compiled.match(uri.slice(0, cut))
      if (variables?.[tail] === undefined) return undefined
      return { ...variables, [tail]: variables[tail] + uri.slice(cut) }
    },
    match(uri) {
      const result = regex.exec(uri)
      if (!result) return undefined
      const out: Record<string, string> = {}
      let safe = true
      groups.forEach((group, index) => {
        const raw = result[index + 1]
        if (raw === undefined) return
        if (!group.query) {
          const value = decode(raw)
          if (!group.reserved && isUnsafe(value)) safe = false
          out[group.name] = value
          return
        }
        const wanted = group.name.split(',')
        for (const pair of raw.split('&')) {
          const equals = pair.indexOf('=')
          const key = equals < 0 ? pair : pair.slice(0, equals)
          if (!wanted.includes(key)) continue
          const value = decode(equals < 0 ? '' : pair.slice(equals + 1))
          if (isUnsafe(value)) safe = false
          out[key] = value
        }
      })
      return safe ? out : undefined
    },
  }
  return compiled
}
