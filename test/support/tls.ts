/**
 * Loopback https for tests whose Worker must fetch over https (an enterprise IdP's JWKS, a
 * client's metadata document), with certificate checks left on everywhere: a self-signed
 * certificate made with openssl at test time (SANs `localhost` and `127.0.0.1`, one day), trusted
 * by this process (`tls.setDefaultCACertificates`, which Node's fetch follows) and by a `wrangler
 * dev` started with `trustedBy(certificate)` in its environment: miniflare hands workerd's
 * outbound network the certificates in NODE_EXTRA_CA_CERTS (read when wrangler starts). A server
 * with another certificate stays untrusted, which the tests use to show the check is real.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer } from 'node:https'
import type { Server } from 'node:https'
import type { RequestListener } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import tls from 'node:tls'

export interface TestCertificate {
  key: string
  cert: string
  /** The certificate's PEM file, for NODE_EXTRA_CA_CERTS. */
  certFile: string
}

/** A fresh key and self-signed certificate for `localhost` and 127.0.0.1. */
export function selfSignedCertificate(): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-edge-tls-'))
  const [keyFile, certFile] = [join(dir, 'key.pem'), join(dir, 'cert.pem')]
  execFileSync(
    'openssl',
    [
      'req',
      ...['-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'],
      ...['-keyout', keyFile, '-out', certFile, '-subj', '/CN=localhost'],
      ...['-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-addext', 'basicConstraints=critical,CA:FALSE'],
    ],
    { stdio: 'ignore' },
  )
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile }
}

/**
 * Trust `certificate` in this process too (the test's own fetches: sign-in at the IdP, the token
 * exchange). Returns the function that puts the previous trust back.
 */
export function trustInThisProcess(certificate: TestCertificate): () => void {
  const before = tls.getCACertificates('default')
  tls.setDefaultCACertificates([...before, certificate.cert])
  return () => tls.setDefaultCACertificates(before)
}

/** The environment that makes a `wrangler dev` (its workerd) trust `certificate`. */
export function trustedBy(certificate: TestCertificate): Record<string, string> {
  return { NODE_EXTRA_CA_CERTS: certificate.certFile }
}

export interface HttpsServer {
  /** `https://localhost:<port>`. */
  origin: string
  port: number
  server: Server
  close(): Promise<void>
}

/**
 * An https server on 127.0.0.1 (`port`, or a free one) presenting `certificate`.
 *
 * @example
 * const site = await startHttps(certificate, (request, response) => response.end('{}'))
 */
export async function startHttps(certificate: TestCertificate, listener: RequestListener, port = 0): Promise<HttpsServer> {
  const server = createServer({ key: certificate.key, cert: certificate.cert }, listener)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', resolve)
  })
  const bound = (server.address() as AddressInfo).port
  return {
    origin: `https://localhost:${bound}`,
    port: bound,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
