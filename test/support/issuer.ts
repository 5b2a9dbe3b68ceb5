/**
 * A local OAuth issuer for the resource-server tests: key pairs the test generates, a JWKS on
 * 127.0.0.1 (counting fetches, so a test can see a refetch on key rotation) and JWTs signed with
 * any of its keys and any claims, good or bad.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import type { CryptoKey, JWK } from 'jose'

export interface IssuerKey {
  kid: string
  privateKey: CryptoKey
  publicJwk: JWK
}

export async function issuerKey(kid: string): Promise<IssuerKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true })
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } }
}

export interface LocalIssuer {
  url: string
  jwksUrl: string
  /** Keys the JWKS publishes now (replace to rotate). */
  published: IssuerKey[]
  /** How many times the JWKS was fetched. */
  fetches: number
  /** `typ`: the JWT type header (default `at+jwt`, RFC 9068); `null` leaves it out. */
  sign(
    claims: Record<string, unknown>,
    options?: { key?: IssuerKey; expiresIn?: string | number; typ?: string | null },
  ): Promise<string>
  close(): Promise<void>
}

export async function startIssuer(): Promise<LocalIssuer> {
  const first = await issuerKey('key-1')
  const state = { published: [first], fetches: 0 }
  const server = createServer((request, response) => {
    if (request.url !== '/jwks.json') {
      response.writeHead(404).end()
      return
    }
    state.fetches++
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(JSON.stringify({ keys: state.published.map((key) => key.publicJwk) }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    jwksUrl: `${url}/jwks.json`,
    get published() {
      return state.published
    },
    set published(keys) {
      state.published = keys
    },
    get fetches() {
      return state.fetches
    },
    async sign(claims, options = {}) {
      const key = options.key ?? first
      const jwt = new SignJWT({ iss: url, ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: key.kid, ...(options.typ === null ? {} : { typ: options.typ ?? 'at+jwt' }) })
        .setIssuedAt()
      if (options.expiresIn !== undefined) jwt.setExpirationTime(options.expiresIn)
      return jwt.sign(key.privateKey)
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
