/**
 * Strict base64 and base64url codecs over bytes. `atob` is forgiving (it accepts missing padding,
 * whitespace and spare bits set), which the header sentinel rules forbid, so the input's form is
 * checked first and its last quantum must encode back to itself: a malformed input returns
 * `undefined` instead of a best guess.
 */

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const BASE64URL = /^[A-Za-z0-9_-]*$/

export function encodeBase64(bytes: Uint8Array): string {
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}

export function encodeBase64Url(bytes: Uint8Array): string {
  return encodeBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** Decode padded standard base64; `undefined` unless the input is canonical (length % 4 == 0). */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  return STRICT_BASE64.test(text) ? decodeCanonical(text) : undefined
}

/** Decode unpadded base64url (the form `encodeBase64Url` writes). */
export function decodeBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return undefined
  const padded = text.replace(/-/g, '+').replace(/_/g, '/') + '=='.slice(0, (4 - (text.length % 4)) % 4)
  return decodeCanonical(padded)
}

/**
 * Decode well-formed padded base64; `undefined` when spare bits are set (a second spelling of the
 * same bytes). Only the last quantum can hold spare bits, so only it is encoded back.
 */
function decodeCanonical(base64: string): Uint8Array<ArrayBuffer> | undefined {
  const tail = base64.slice(-4)
  if (btoa(atob(tail)) !== tail) return undefined
  const binary = atob(base64)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}
