/**
 * What the person sees at /authorize (src/consent.ts): the consent page and the pages for the
 * requests it refuses. Plain HTML that works without JavaScript: system fonts, dark mode by
 * `prefers-color-scheme`, one `<style>` allowed by its hash in a strict Content-Security-Policy
 * (no script at all, images only from https: and data: URLs: the server's icon, the client's logo).
 * Everything a client or a request chose (its name, logo, URIs, scopes) is escaped here.
 */
import type { ConsentDescription } from '@cloudflare/workers-oauth-provider'

/** Who is asking for consent: shown at the top of every page. */
export interface ServerBrand {
  name: string
  /** An https: or data: image URL (the MCP server's first icon). */
  icon?: string
}

/** How the person signs in after approving: at their provider, here with the passphrase, or locally with a name. */
export type SignInBy = { provider: string } | { passphrase: boolean }

export interface ConsentView {
  details: ConsentDescription
  handle: string
  /** The scopes offered, each with the words that describe it. */
  scopes: { scope: string; description: string }[]
  by: SignInBy
}

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)

const CSS = `:root{color-scheme:light dark;--bg:#f4f4f5;--card:#fff;--text:#18181b;--muted:#52525b;--line:#d4d4d8;--accent:#1d4ed8;--on-accent:#fff;--warn-bg:#fef3c7;--warn:#78350f;--focus:#2563eb}
@media (prefers-color-scheme:dark){:root{--bg:#09090b;--card:#18181b;--text:#f4f4f5;--muted:#a1a1aa;--line:#3f3f46;--accent:#93c5fd;--on-accent:#0b1220;--warn-bg:#422006;--warn:#fde68a;--focus:#93c5fd}}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header{display:flex;align-items:center;gap:.6rem;max-width:32rem;margin:0 auto;padding:1.5rem 1rem .5rem;font-weight:600}
header img{width:2rem;height:2rem;border-radius:.4rem}
main{max-width:32rem;margin:0 auto;padding:0 1rem 2rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:1.5rem}
.client{display:flex;gap:.9rem;align-items:flex-start}
.client img{width:3rem;height:3rem;border-radius:.6rem;border:1px solid var(--line);flex:none;object-fit:contain}
h1{font-size:1.3rem;line-height:1.3;margin:0 0 .4rem}
p{margin:.6rem 0}
.muted{color:var(--muted);font-size:.95rem}
.tag{display:inline-block;border:1px solid var(--line);border-radius:999px;padding:0 .5rem;font-size:.8rem;font-weight:600;color:var(--warn);background:var(--warn-bg)}
.warn{background:var(--warn-bg);color:var(--warn);border-radius:.5rem;padding:.6rem .8rem}
code{font:.9em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
fieldset{border:1px solid var(--line);border-radius:.5rem;margin:1rem 0;padding:.4rem .9rem .7rem}
legend{font-weight:600;padding:0 .3rem}
.scope{display:flex;gap:.6rem;align-items:flex-start;margin-top:.5rem}
.scope input{flex:none;margin-top:.3rem;width:1.1rem;height:1.1rem;accent-color:var(--accent)}
.scope code{display:block;color:var(--muted);font-size:.8rem}
.field{display:block;margin:1rem 0}
.field span{display:block;font-weight:600;margin-bottom:.3rem}
.field input{width:100%;font:inherit;padding:.5rem .6rem;border:1px solid var(--muted);border-radius:.4rem;background:var(--card);color:var(--text)}
.actions{display:flex;gap:.75rem;margin-top:1.25rem}
button{font:inherit;font-weight:600;padding:.55rem 1.4rem;border-radius:.45rem;border:1px solid var(--line);background:var(--card);color:var(--text);cursor:pointer}
button.allow{background:var(--accent);border-color:var(--accent);color:var(--on-accent)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}`

/** The page's Content-Security-Policy: nothing but this stylesheet and images; no script, no framing. */
let policy: Promise<string> | undefined
export function contentSecurityPolicy(): Promise<string> {
  policy ??= crypto.subtle.digest('SHA-256', new TextEncoder().encode(CSS)).then((digest) => {
    const hash = btoa(String.fromCharCode(...new Uint8Array(digest)))
    // No form-action: Chromium applies it to the redirects after the POST too (to the client's
    // redirect URI, to the identity provider), which would block the very answer the form asks for.
    return `default-src 'none'; style-src 'sha256-${hash}'; img-src https: data:; base-uri 'none'; frame-ancestors 'none'`
  })
  return policy
}

/** An image URL a page may show: https: or data:image, anything else (javascript:, http:) dropped. */
function imageUrl(url: string | undefined): string | undefined {
  if (!url) return undefined
  if (url.startsWith('data:image/')) return url
  try {
    return new URL(url).protocol === 'https:' ? url : undefined
  } catch {
    return undefined
  }
}

function layout(title: string, brand: ServerBrand, body: string): string {
  const icon = imageUrl(brand.icon)
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · ${escapeHtml(brand.name)}</title>
<style>${CSS}</style>
</head>
<body>
<header>${icon ? `<img src="${escapeHtml(icon)}" alt="">` : ''}<span>${escapeHtml(brand.name)}</span></header>
<main>
<div class="card">
${body}
</div>
</main>
</body>
</html>`
}

/** Where the tokens go: the redirect URI's origin, or the whole URI for a native app's private-use scheme. */
function destination(details: ConsentDescription): string {
  try {
    const origin = new URL(details.redirectUri).origin
    return origin === 'null' ? details.redirectUri : origin
  } catch {
    return details.redirectHost
  }
}

function signInField(by: SignInBy): string {
  if ('provider' in by) return `<p>Next you sign in at <strong>${escapeHtml(new URL(by.provider).host)}</strong>.</p>`
  if (by.passphrase) {
    return '<label class="field"><span>Passphrase</span><input type="password" name="passphrase" required autocomplete="current-password"></label>'
  }
  return '<label class="field"><span>Your name</span><input name="user" required pattern="[^:]{1,64}" autocomplete="username"></label>'
}

/** The consent page: who asks, where access goes, what it may do, and Allow or Deny. */
export function consentPage(brand: ServerBrand, view: ConsentView): string {
  const { details, handle, scopes, by } = view
  const client = escapeHtml(details.clientName)
  const logo = imageUrl(details.logoUri)
  const publisher = details.clientDomain
    ? `Published by <strong>${escapeHtml(details.clientDomain)}</strong>.`
    : '<span class="tag">Unverified</span> This app registered itself; its name is not verified.'
  const boxes = scopes
    .map(
      ({ scope, description }) =>
        `<label class="scope"><input type="checkbox" name="scope" value="${escapeHtml(scope)}" checked><span>${escapeHtml(description)}<code>${escapeHtml(scope)}</code></span></label>`,
    )
    .join('\n')
  const loopback = details.redirectIsLoopback
    ? '<p class="warn" role="note"><strong>This sends access to an app on your computer.</strong> Continue only if you just started signing in from it.</p>'
    : ''
  const body = `<div class="client">${logo ? `<img src="${escapeHtml(logo)}" alt="" referrerpolicy="no-referrer">` : ''}<div>
<h1>Allow ${client} to use this MCP server as you?</h1>
<p class="muted">${publisher}</p>
</div></div>
<p>Access will be sent to <strong>${escapeHtml(details.redirectHost)}</strong>.</p>
<p class="muted">Address: <code>${escapeHtml(destination(details))}</code></p>
${loopback}
<form method="post">
<input type="hidden" name="handle" value="${escapeHtml(handle)}">
${signInField(by)}
<fieldset><legend>It will be able to</legend>
${boxes}
</fieldset>
<div class="actions"><button class="allow" name="decision" value="approve">Allow</button><button name="decision" value="deny" formnovalidate>Deny</button></div>
</form>`
  return layout(`Authorize ${details.clientName}`, brand, body)
}

const NOTHING_SHARED = 'Nothing was shared with the app. Close this page and start signing in again from the app.'

/** A refusal the person reads: a heading and the reason; nothing is sent anywhere. */
export function errorPage(brand: ServerBrand, message: string, status: number): string {
  const heading = status >= 500 ? 'Sign-in is unavailable' : 'This sign-in cannot continue'
  const body = `<h1>${heading}</h1>\n<p role="alert">${escapeHtml(message)}</p>\n<p class="muted">${NOTHING_SHARED}</p>`
  return layout(heading, brand, body)
}
