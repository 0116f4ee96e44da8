/**
 * The standalone part of capture-release.ts: release 0.1.0's `standalone` writes its state directory
 * (SQLite store and the built-in simulated host) with a vswitch and 10 guests, all Ready, then stops.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, stopProcess, waitUntil } from '../../kube/processes.js';
import { spawnRelease } from './release-build.js';

export const STANDALONE_GUESTS = 10;

export function standaloneObjects(): Record<string, unknown>[] {
  const V = 'zvm.dev/v1alpha1';
  const guests = Array.from({ length: STANDALONE_GUESTS }, (_, i) => {
    const n = i + 1;
    const shape = [{ powerState: 'On' }, { powerState: 'Off' }, { powerState: 'On', nics: [{ vdev: '1000', vswitch: 'VSW1' }], disks: [{ size: '100M', vdev: '0201' }] }][n % 3];
    return { apiVersion: V, kind: 'ZGuest', metadata: { name: `solo-${String(n).padStart(2, '0')}` }, spec: { userid: `SOLO${String(n).padStart(4, '0')}`, vcpus: 1, memory: '512M', ...shape } };
  });
  return [{ apiVersion: V, kind: 'ZVswitch', metadata: { name: 'vsw1' }, spec: { switchName: 'VSW1', rdev: '1000' } }, ...guests];
}

interface Listed { items: { status?: { conditions?: { type: string; status: string }[] } }[] }

/** Leaves the state in `stateDir` and the guests as the release lists them at the end in `guestsFile`. */
export async function captureStandalone(main: string, stateDir: string, guestsFile: string): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'zvm-capture-solo-'));
  mkdirSync(stateDir, { recursive: true });
  const [port, adminPort] = await freePorts(2);
  const server = `http://127.0.0.1:${adminPort}`;
  const proc = spawnRelease(main, join(work, 'standalone.log'), ['standalone', '--state-dir', stateDir, '--port', String(port), '--admin-port', String(adminPort)]);
  const cli = (args: string[], input?: string) => execFileSync(process.execPath, [main, ...args, '--server', server], { input, encoding: 'utf8' });
  try {
    await waitUntil(async () => (await fetch(`${server}/readyz`).catch(() => undefined))?.ok === true, { what: 'release standalone ready', timeoutMs: 60_000, watch: [proc] });
    cli(['apply', '-f', '-'], standaloneObjects().map((o) => JSON.stringify(o)).join('\n---\n'));
    await waitUntil(async () => {
      const listed = JSON.parse(cli(['get', 'zguest', '-o', 'json'])) as Listed;
      return listed.items.length === STANDALONE_GUESTS && listed.items.every((g) => g.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
    }, { what: 'the standalone guests Ready', timeoutMs: 180_000, watch: [proc], intervalMs: 1000 });
    await new Promise((r) => setTimeout(r, 3_000));
    writeFileSync(guestsFile, cli(['get', 'zguest', '-o', 'json']));
  } finally {
    await stopProcess(proc);
    rmSync(work, { recursive: true, force: true });
  }
}
