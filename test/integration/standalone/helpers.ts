import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStandalone, type Standalone, type StandaloneOptions } from '../../../src/cmd/standalone.js';
import { silentLogger } from '../../../src/log.js';
import type { EnvelopeBody } from '../../../src/rest/envelope.js';

/** What a test reads back is exactly the envelope the server builds. */
export type Envelope<T = unknown> = EnvelopeBody<T>;

export function tempStateDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'zvm-standalone-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Standalone for one describe block: started before its tests, stopped and its state removed after them. */
export function standaloneForSuite(extra: Partial<StandaloneOptions> = {}, startTimeoutMs?: number): { readonly app: Standalone; readonly dir: string } {
  const state = tempStateDir();
  let app: Standalone | undefined;
  beforeAll(async () => {
    app = await startTestStandalone(state.dir, extra);
  }, startTimeoutMs);
  afterAll(async () => {
    await app?.stop();
    state.cleanup();
  });
  return {
    dir: state.dir,
    get app(): Standalone {
      if (!app) throw new Error('standalone did not start (see beforeAll)');
      return app;
    },
  };
}

/** Standalone mode on ephemeral loopback ports, as `npm start` runs it. */
export function startTestStandalone(stateDir: string, extra: Partial<StandaloneOptions> = {}): Promise<Standalone> {
  return startStandalone(
    { port: 0, bind: '127.0.0.1', adminPort: 0, stateDir, auth: 'none', namespace: 'default', pollMs: 50, operationTimeout: '20s', ...extra },
    silentLogger(),
  );
}

/** One HTTP call over the real socket; returns status, headers and the parsed JSON body. */
export async function http<T = unknown>(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as Envelope<T> };
}

/**
 * GET with a raw body (fetch refuses bodies on GET), as GET /vswitch and GET /volumes/conn/{userid}
 * of the reference expect; no body sends none.
 */
export function getWithBody<T = unknown>(base: string, path: string, body?: string): Promise<{ status: number; body: Envelope<T> }> {
  const url = new URL(path, base);
  const headers = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Envelope<T> }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The probe's first defined answer, polled every 50 ms; an error after timeoutMs. */
export async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
