import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStandalone, type Standalone, type StandaloneOptions } from '../../../src/cmd/standalone.js';
import { silentLogger } from '../../../src/log.js';

export interface Envelope<T = unknown> {
  overallRC: number;
  modID: number | null;
  rc: number;
  rs: number;
  errmsg: string;
  output: T;
}

export function tempStateDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'zvm-standalone-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Standalone mode on ephemeral loopback ports, as `npm start` runs it. */
export function startTestStandalone(stateDir: string, extra: Partial<StandaloneOptions> = {}): Promise<Standalone> {
  return startStandalone(
    { port: 0, bind: '127.0.0.1', adminPort: 0, stateDir, auth: 'none', namespace: 'default', pollMs: 50, waitTimeoutMs: 20_000, ...extra },
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
