/**
 * `npm run bench -- --only startup`: the command users run (`node dist/cmd/main.js`, what `npm start`
 * and the image start) — time from spawn to ready, RSS and CPU once idle, for `standalone` (empty state
 * directory, ready when it logs its URLs) and `controller` (real kube-apiserver, no guests, ready when
 * /readyz answers 200). The first run of each is reported apart: it pays for a cold file cache.
 */
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnZvm } from '../test/builders/zvm.js';
import { freePort, spawnCli, startOperatorEnv, stopProcess, type OperatorEnv } from '../test/e2e/operator/helpers.js';
import type { Figure } from './lib/figures.js';
import { tempDir } from './lib/operator-world.js';
import { cpuSeconds, rssBytes } from './lib/proc-stats.js';

const MB = 1024 * 1024;

interface Start {
  readyS: number;
  /** the 1-minute load average when it became ready: start times on a shared machine mean little without it */
  load: number;
  /** lowest RSS over the idle window after ready */
  idleRss: number;
  /** CPU-ms per second over the idle window's last two thirds (the first third settles the start) */
  idleCpu: number;
}

export async function runStartup(o: { runs: number; idleMs: number; deadline: number }): Promise<Figure[]> {
  const standalone = await repeat(o.runs, () => startStandalone(o.idleMs, o.deadline));
  const controller = await withOperatorEnv((env) => repeat(o.runs, () => startController(env, o.idleMs, o.deadline))).catch((err: unknown) => err as Error);
  return [...figures('standalone', 'empty state directory', standalone), ...(controller instanceof Error ? [unmeasured(controller)] : figures('controller', 'kube-apiserver, no guests', controller))];
}

async function repeat(runs: number, once: () => Promise<Start>): Promise<Start[]> {
  const out: Start[] = [];
  for (let i = 0; i < runs; i += 1) out.push(await once());
  return out;
}

function figures(what: string, setting: string, runs: Start[]): Figure[] {
  const later = runs.slice(1).length ? runs.slice(1) : runs;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return [
    {
      id: `startup.${what}.ready`, name: `startup: compiled ${what}, spawn to ready (${setting})`, value: median(later.map((r) => r.readyS)), unit: 's',
      detail: `median of ${later.length} warm run(s): ${later.map((r) => `${r.readyS.toFixed(2)} s (load ${r.load.toFixed(1)})`).join(', ')}; first run ${runs[0]!.readyS.toFixed(2)} s`,
    },
    {
      id: `startup.${what}.rss`, name: `startup: compiled ${what}, idle RSS (${setting})`, value: median(runs.map((r) => r.idleRss / MB)), unit: 'MB',
      detail: `per run: ${runs.map((r) => (r.idleRss / MB).toFixed(0)).join(', ')} MB`,
    },
    {
      id: `startup.${what}.idle-cpu`, name: `startup: compiled ${what}, idle CPU (${setting})`, value: median(runs.map((r) => r.idleCpu)), unit: 'ms/s',
      detail: `over the last two thirds of the idle window, per run: ${runs.map((r) => r.idleCpu.toFixed(1)).join(', ')} ms/s (/proc counts in 10 ms ticks)`,
    },
  ];
}

function unmeasured(err: Error): Figure {
  return { id: 'startup.controller.ready', name: 'startup: compiled controller, spawn to ready', value: null, unit: 's', detail: `not measured: ${err.message} (bash test/kube/toolchain.sh builds the kube-apiserver)` };
}

async function idleStats(pid: number, idleMs: number): Promise<Pick<Start, 'idleRss' | 'idleCpu'>> {
  let lowest = Infinity;
  const settled = Math.round(idleMs / 3000) * 1000;
  let cpu0 = 0;
  for (let t = 0; t <= idleMs; t += 1000) {
    lowest = Math.min(lowest, rssBytes(pid));
    if (t === settled) cpu0 = cpuSeconds(pid);
    if (t < idleMs) await sleep(1000);
  }
  return { idleRss: lowest, idleCpu: ((cpuSeconds(pid) - cpu0) * 1000) / ((idleMs - settled) / 1000) };
}

async function startStandalone(idleMs: number, deadline: number): Promise<Start> {
  const t0 = performance.now();
  const stateDir = tempDir('startup');
  const child = spawnZvm(['standalone', '--port', '0', '--admin-port', '0', '--state-dir', stateDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const readyS = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('standalone did not log ready in time')), Math.max(10_000, deadline - Date.now()));
      child.once('exit', (code) => reject(new Error(`standalone exited with ${code} before ready`)));
      child.stdout!.on('data', (chunk: Buffer) => {
        if (!chunk.toString('utf8').includes('standalone mode ready')) return;
        clearTimeout(timer);
        resolve((performance.now() - t0) / 1000);
      });
    });
    return { readyS, load: loadavg()[0]!, ...(await idleStats(child.pid!, idleMs)) };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    rmSync(stateDir, { recursive: true, force: true });
  }
}

async function withOperatorEnv<T>(use: (env: OperatorEnv) => Promise<T>): Promise<T> {
  const env = await startOperatorEnv();
  try {
    return await use(env);
  } finally {
    await env.env.stop();
  }
}

async function startController(env: OperatorEnv, idleMs: number, deadline: number): Promise<Start> {
  const probe = await freePort();
  const t0 = performance.now();
  const proc = spawnCli(env, 'startup-controller', ['controller', '--kubeconfig', env.kubeconfig, '--namespace', env.namespace, '--health-probe-bind-address', `127.0.0.1:${probe}`, '--metrics-bind-address', '0'], { POD_NAME: 'startup', LOG_LEVEL: 'info' });
  try {
    while ((await fetch(`http://127.0.0.1:${probe}/readyz`).catch(() => undefined))?.ok !== true) {
      if (proc.exitStatus() !== undefined) throw new Error(`controller exited with ${proc.exitStatus()} before ready`);
      if (Date.now() > deadline) throw new Error('controller not ready in time');
      await sleep(50);
    }
    const readyS = (performance.now() - t0) / 1000;
    return { readyS, load: loadavg()[0]!, ...(await idleStats(proc.child.pid!, idleMs)) };
  } finally {
    await stopProcess(proc);
  }
}
