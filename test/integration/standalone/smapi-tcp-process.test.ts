/**
 * `zvm-operator standalone --smapi-tcp` as users start it: with LOG_LEVEL=warn it still starts (the
 * simulator child tells its parent its ports over IPC, not in an info log line), and the simulator
 * child does not outlive its parent, even one killed with SIGKILL.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnZvm } from '../../builders/zvm.js';
import { freePorts } from '../../kube/processes.js';

const BOUND_MS = 60_000;

async function waitFor(what: string, probe: () => boolean | Promise<boolean>): Promise<void> {
  const until = Date.now() + BOUND_MS;
  while (!(await probe())) {
    if (Date.now() > until) throw new Error(`${what}: not reached within ${BOUND_MS} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Live (not zombie) children of `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

test('LOG_LEVEL=warn --smapi-tcp starts, and the simulator child ends with its parent', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'zvm-smapi-tcp-'));
  const [port, adminPort] = await freePorts(2);
  const proc = spawnZvm(['standalone', '--smapi-tcp', '--port', String(port), '--admin-port', String(adminPort), '--state-dir', dir], {
    stdio: 'ignore', env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  try {
    await waitFor('standalone ready', async () => (await fetch(`http://127.0.0.1:${adminPort}/readyz`).catch(() => undefined))?.status === 200);
    const guests = await fetch(`http://127.0.0.1:${port}/guests`);
    expect(guests.status).toBe(200); // answered through the simulator child
    const sims = childrenOf(proc.pid!);
    expect(sims).toHaveLength(1);
    proc.kill('SIGKILL');
    await waitFor('the simulator child gone', () => !alive(sims[0]!));
    expect(alive(sims[0]!)).toBe(false);
  } finally {
    proc.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}, 2 * BOUND_MS + 10_000);

test('standalone working a few guests warns of no listener leak (many waits share one stop signal)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'zvm-listeners-'));
  const [port, adminPort] = await freePorts(2);
  const proc = spawnZvm(['standalone', '--drift-period', '1s', '--port', String(port), '--admin-port', String(adminPort), '--state-dir', dir], {
    stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  let stderr = '';
  proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    await waitFor('standalone ready', async () => (await fetch(`http://127.0.0.1:${adminPort}/readyz`).catch(() => undefined))?.status === 200);
    for (const userid of ['leak1', 'leak2', 'leak3']) {
      const res = await fetch(`http://127.0.0.1:${port}/guests`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ guest: { userid, vcpus: 1, memory: 512 } }),
      });
      expect(res.status).toBe(200);
    }
    // a few drift periods: each host's detector and every controller sleep on the shared signal meanwhile
    await new Promise((r) => setTimeout(r, 3_000));
    expect(stderr).not.toContain('MaxListenersExceededWarning');
  } finally {
    proc.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}, BOUND_MS + 10_000);
