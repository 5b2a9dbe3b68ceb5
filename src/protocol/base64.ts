/**
 * Strict base64 and base64url codecs over bytes. `atob` is forgiving (it accepts missing padding),
 * which the header sentinel rules forbid, so decoding is written out here: a malformed input
 * returns `undefined` instead of a best guess.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const LOOKUP = new Int16Array(128).fill(-1)
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i
LOOKUP['-'.charCodeAt(0)] = 62
LOOKUP['_'.charCodeAt(0)] = 63

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
  if (!STRICT_BASE64.test(text)) return undefined
  return decodeChars(text.replace(/=+$/, ''))
}

/** Decode unpadded base64url (the form `encodeBase64Url` writes). */
export function decodeBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return undefined
  return decodeChars(text)
}

/** Decode; `undefined` when leftover bits are set (a non-canonical spelling of the same bytes). */
function decodeChars(text: string): Uint8Array<ArrayBuffer> | undefined {
  const out = new Uint8Array(Math.floor((text.length * 3) / 4))
  let buffer = 0
  let bits = 0
  let index = 0
  for (let i = 0; i < text.length; i++) {
    buffer = (buffer << 6) | (LOOKUP[text.charCodeAt(i)] as number)
    bits += 6
    if (bits >= 8) {
      bits -= 8
      out[index++] = (buffer >> bits) & 0xff
    }
  }
  return (buffer & ((1 << bits) - 1)) === 0 ? out : undefined
}
