/**
 * HTTPS calls that trust a test CA (Node 20's fetch takes no CA) and, for mTLS, present a client
 * certificate; each answer says which server certificate the connection saw and whether it was reused.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { request, type Agent } from 'node:https';
import { connect, type TLSSocket } from 'node:tls';
import { createTestPki, type CertPair, type TestPki } from '../../kube/pki.js';
import type { Envelope } from './helpers.js';

export interface TlsClient {
  /** PEM file(s) of the CAs trusted for the server certificate */
  ca: string | string[];
  /** client certificate presented to a --tls-client-ca listener */
  client?: CertPair;
  agent?: Agent;
}

export interface HttpsAnswer<T = unknown> {
  status: number;
  headers: Headers;
  /** the parsed JSON answer (the admin probes answer plain text: see `text`) */
  body: Envelope<T>;
  text: string;
  /** SHA-256 fingerprint of the certificate the server presented on this connection */
  serverCert: string;
  reusedSocket: boolean;
}

const pem = (files: string | string[]) => (Array.isArray(files) ? files : [files]).map((f) => readFileSync(f));

/** The helpers' `http()` over HTTPS: same arguments after the client, same status/headers/body. */
export function https<T = unknown>(tls: TlsClient, base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpsAnswer<T>> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  // a length, as fetch sends: node's client would otherwise write a DELETE body with neither length nor chunks
  const sent = payload === undefined ? headers : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)), ...headers };
  const client = tls.client ? { cert: readFileSync(tls.client.cert), key: readFileSync(tls.client.key) } : {};
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers: sent, ca: pem(tls.ca), ...client, agent: tls.agent, timeout: 60_000 }, (res) => {
      const socket = res.socket as TLSSocket;
      const serverCert = socket.getPeerCertificate().fingerprint256;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const answer = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') answer.set(k, v);
        const json = answer.get('content-type')?.startsWith('application/json') && text ? JSON.parse(text) : undefined;
        resolve({ status: res.statusCode ?? 0, headers: answer, body: json as Envelope<T>, text, serverCert, reusedSocket: req.reusedSocket });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within 60 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** A throw-away CA in `dir` (created) with a serving certificate for 127.0.0.1 and one client certificate (`machine`). */
export function testPki(dir: string): Promise<TestPki> {
  mkdirSync(dir, { recursive: true });
  return createTestPki(dir, { machine: { user: 'machine-client', groups: [] } });
}

export const fingerprint = (certFile: string) => new X509Certificate(readFileSync(certFile)).fingerprint256;

/** The certificate a fresh TLS connection to `url`'s port is shown. */
function presented(url: string, ca: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(url).port), ca: pem(ca) }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.on('error', reject);
  });
}

/** New connections until one is shown `wanted` (a reload polls the files), at most 300 of them 100 ms apart; the last one seen. */
export async function presentedUntil(url: string, ca: string[], wanted: string): Promise<string> {
  let seen = '';
  for (let i = 0; i < 300 && seen !== wanted; i++) {
    seen = await presented(url, ca);
    if (seen !== wanted) await new Promise((r) => setTimeout(r, 100));
  }
  return seen;
}
