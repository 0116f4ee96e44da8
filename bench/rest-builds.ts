/**
 * `npm run bench -- --only builds` (issue 38): today's compiled standalone against the build of the
 * commit before issue 38 (BASE_COMMIT), in the same run, each its own process loaded over loopback
 * by bench/load-client.ts: req/s and req/s per CPU-second of the serving process (/proc utime+stime,
 * the steadier figure on a shared machine), SMAPI calls per live read (the admin /metrics counters)
 * and idle RSS; then today's `GET …/power_state` latency during a burst of creates beside idle. The base is built once outside the repository: `git archive` of the commit into
 * ~/.cache/zvm-operator/bench-base-<commit>-node<major>, then `npm ci` there (its better-sqlite3 compiles then).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { MAIN_JS, NODE_FLAGS } from '../src/cmd/self-command.js';
import { compiledBenchFile, runChild } from './lib/child.js';
import type { Figure } from './lib/figures.js';
import { tempDir } from './lib/operator-world.js';
import { cpuSeconds, rssBytes } from './lib/proc-stats.js';
import type { LoadResult, LoadSpec } from './load-client.js';

/** The last commit of main before issue 38's work. */
export const BASE_COMMIT = 'f41a547';
const REPO = fileURLToPath(new URL('../', import.meta.url));
const MB = 1024 * 1024;
/** a restarted standalone's first look at the host and first resync of its guests are done by then */
const IDLE_SETTLE_MS = 6000;
/** the node both builds run on (ZVM_BENCH_NODE: e.g. the Node major the base's native module was built for) */
const NODE = process.env.ZVM_BENCH_NODE ?? process.execPath;
/** host facts period of today's standalone (its default) */
const FACTS_PERIOD_S = 5;

export interface Build {
  label: 'today' | 'base';
  main: string;
  /** Node's flags as the build ships them (npm start, the image) */
  nodeFlags: string[];
}

export interface Served {
  child: ChildProcess;
  restUrl: string;
  adminUrl: string;
  stateDir: string;
}

/** The base build's main.js, building it once (minutes: npm ci compiles its native SQLite). */
function baseBuild(): string {
  // per Node major: the base's better-sqlite3 is compiled for the Node that ran its npm ci
  const major = execFileSync(NODE, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).trim();
  const dir = process.env.ZVM_BENCH_BASE_DIR ?? join(homedir(), '.cache', 'zvm-operator', `bench-base-${BASE_COMMIT}-node${major}`);
  const main = join(dir, 'dist', 'cmd', 'main.js');
  // written once the build is known to open its database: a build whose native SQLite did not compile is built again
  const built = join(dir, '.zvm-bench-built');
  if (existsSync(built)) return main;
  process.stderr.write(`  builds: building ${BASE_COMMIT} in ${dir} (git archive + npm ci, once)\n`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('bash', ['-c', `git -C "${REPO}" archive ${BASE_COMMIT} | tar -x -C "${dir}"`], { stdio: 'inherit' });
  // npm 11 runs no dependency's install script unless allowed (the project's .npmrc, never a flag), and the
  // base's better-sqlite3 compiles in one
  writeFileSync(join(dir, '.npmrc'), 'allow-scripts=better-sqlite3\n');
  // compiled against NODE's own headers: npm's nodedir may name another Node's (Debian's npm: /usr)
  const nodeDir = dirname(dirname(NODE));
  const headers = existsSync(join(nodeDir, 'include', 'node', 'node.h')) ? { npm_config_nodedir: nodeDir } : {};
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'], timeout: 1_200_000, env: { ...process.env, ...headers } });
  if (!existsSync(main)) throw new Error(`npm ci in ${dir} built no ${main}`);
  execFileSync(NODE, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  writeFileSync(built, `${new Date().toISOString()}\n`);
  return main;
}

/**
 * Starts `build`'s standalone on free loopback ports; `extraArgs` are more of its flags (e.g. --smapi-tcp);
 * `stateDir` a state it left before (a restart), else a new one.
 */
export async function start(build: Build, extraArgs: string[] = [], stateDir = tempDir(`builds-${build.label}`)): Promise<Served> {
  const child = spawn(NODE, [...build.nodeFlags, build.main, 'standalone', '--port', '0', '--admin-port', '0', '--state-dir', stateDir, ...extraArgs], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = await new Promise<{ restUrl: string; adminUrl: string }>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${build.label} standalone not ready in 120 s`)), 120_000);
    child.once('exit', (code) => reject(new Error(`${build.label} standalone exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n').find((l) => l.includes('standalone mode ready'));
      if (!line) return;
      clearTimeout(timer);
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      resolve(JSON.parse(line) as { restUrl: string; adminUrl: string });
    });
  });
  return { child, stateDir, ...ready };
}

async function halt(s: Served): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const exited = new Promise((resolve) => s.child.once('exit', resolve));
  s.child.kill('SIGTERM');
  await exited;
}

export async function stop(s: Served): Promise<void> {
  await halt(s);
  rmSync(s.stateDir, { recursive: true, force: true });
}

/** Stops `s` and starts `build` again on its state: the guests it holds, without the heap a burst of creates grew. */
async function restart(s: Served, build: Build): Promise<Served> {
  await halt(s);
  return start(build, [], s.stateDir);
}

/** zvm_smapi_calls_total by function, summed over outcomes. */
async function smapiCalls(adminUrl: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${adminUrl}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^zvm_smapi_calls_total\{[^}]*function="([^"]+)"[^}]*\} (\d+)/gm)) out[m[1]] = (out[m[1]] ?? 0) + Number(m[2]);
  return out;
}

const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
const minus = (a: Record<string, number>, b: Record<string, number>) => Object.fromEntries(Object.keys(a).map((k) => [k, a[k] - (b[k] ?? 0)]).filter(([, v]) => v !== 0));

export async function createGuests(s: Served, count: number, prefix = 'BLD'): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(4, '0')}`);
  for (let i = 0; i < ids.length; i += 8) {
    await Promise.all(ids.slice(i, i + 8).map(async (userid) => {
      const res = await fetch(`${s.restUrl}/guests`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ guest: { userid, vcpus: 1, memory: 512 } }) });
      if (res.status !== 200) throw new Error(`creating ${userid}: ${res.status} ${await res.text()}`);
    }));
  }
  return ids;
}

interface Sample {
  result: LoadResult;
  cpuS: number;
  calls: Record<string, number>;
  load: number;
}

async function measure(s: Served, spec: Omit<LoadSpec, 'base'>): Promise<Sample | undefined> {
  const calls0 = await smapiCalls(s.adminUrl);
  const cpu0 = cpuSeconds(s.child.pid!);
  const run = await runChild(compiledBenchFile('load-client.ts'), [JSON.stringify({ ...spec, base: s.restUrl })], { timeoutMs: spec.durationMs + 60_000 });
  const cpuS = cpuSeconds(s.child.pid!) - cpu0;
  const result = run.lines[0] as unknown as LoadResult | undefined;
  return result && { result, cpuS, calls: minus(await smapiCalls(s.adminUrl), calls0), load: loadavg()[0] };
}

async function lowestRss(pid: number, ms: number): Promise<number> {
  let lowest = Infinity;
  for (let t = 0; t <= ms; t += 500) {
    lowest = Math.min(lowest, rssBytes(pid));
    await sleep(500);
  }
  return lowest;
}

interface Scenario {
  id: string;
  name: string;
  spec: (ids: string[]) => Omit<LoadSpec, 'base'>;
  /** target of today's req/s per CPU-second ÷ the base's */
  perCpuTarget: number;
}

export async function runRestBuilds(o: { guests: number; seconds: number; deadline: number }): Promise<Figure[]> {
  const builds: Build[] = [{ label: 'base', main: baseBuild(), nodeFlags: [] }, { label: 'today', main: MAIN_JS, nodeFlags: NODE_FLAGS }];
  const ms = o.seconds * 1000;
  const get = (path: string, workers: number) => (ids: string[]) => ({ method: 'GET' as const, path, ids, workers, durationMs: ms, maxRequests: 500_000 });
  const scenarios: Scenario[] = [
    { id: 'root-4', name: 'GET / (4 clients)', spec: get('/', 4), perCpuTarget: 1 },
    { id: 'root-16', name: 'GET / (16 clients)', spec: get('/', 16), perCpuTarget: 1 },
    { id: 'list-4', name: 'GET /guests (4 clients)', spec: get('/guests', 4), perCpuTarget: 1 },
    { id: 'list-16', name: 'GET /guests (16 clients)', spec: get('/guests', 16), perCpuTarget: 1 },
    { id: 'power-16', name: 'GET /guests/{id}/power_state (16 clients)', spec: get('/guests/{id}/power_state', 16), perCpuTarget: 1 },
    { id: 'host-16', name: 'GET /host (16 clients)', spec: get('/host', 16), perCpuTarget: 1 },
  ];
  const servers = new Map<string, Served>();
  const rss = new Map<string, RssSamples>();
  const samples = new Map<string, Map<string, Sample | undefined>>();
  let ids: string[] = [];
  let burst: BurstSamples | undefined;
  try {
    for (const b of builds) {
      const first = await start(b);
      servers.set(b.label, first);
      const fresh = await lowestRss(first.child.pid!, 3000);
      ids = await createGuests(first, o.guests);
      const afterCreates = await lowestRss(first.child.pid!, 3000);
      // idle with the guests: restarted on them, past its first look at the host and its first resync
      // (not the base: f41a547 aborts in a native assertion when it starts on a state that holds guests)
      if (b.label === 'base') {
        rss.set(b.label, { fresh, afterCreates });
        continue;
      }
      const s = await restart(first, b);
      servers.set(b.label, s);
      await sleep(IDLE_SETTLE_MS);
      rss.set(b.label, { fresh, afterCreates, withGuests: await lowestRss(s.child.pid!, 3000) });
    }
    for (const sc of scenarios) {
      const per = new Map<string, Sample | undefined>();
      // base, then today, on the same machine a few seconds apart
      for (const b of builds) {
        if (Date.now() > o.deadline) break;
        process.stderr.write(`  builds: ${sc.name}, ${b.label}\n`);
        per.set(b.label, await measure(servers.get(b.label)!, sc.spec(ids)));
      }
      samples.set(sc.id, per);
    }
    if (Date.now() < o.deadline) {
      process.stderr.write('  builds: power_state reads idle and during a create burst, today\n');
      burst = await readsDuringBurst(servers.get('today')!, ids, 200, ms);
    }
  } finally {
    for (const s of servers.values()) await stop(s);
  }
  return [...scenarios.flatMap((sc) => scenarioFigures(sc, samples.get(sc.id))), ...callFigures(samples, o.seconds), ...rssFigures(rss, o.guests), ...burstFigures(burst)];
}

interface BurstSamples {
  idle?: Sample;
  burst?: Sample;
  created: number;
  createS: number;
}

/**
 * Issue 38 item 6: `GET …/power_state` from 4 clients on today's standalone, idle, then while `creates`
 * guests are created through REST, 8 at a time (the store's and the simulator's commits on the event loop).
 */
async function readsDuringBurst(s: Served, ids: string[], creates: number, ms: number): Promise<BurstSamples> {
  const spec = { method: 'GET' as const, path: '/guests/{id}/power_state', ids, workers: 4, durationMs: ms, maxRequests: 500_000 };
  const idle = await measure(s, spec);
  const reading = measure(s, spec);
  // the reads' client has started (its process spawns in well under a second) before the creates begin
  await sleep(1000);
  const t0 = performance.now();
  await createGuests(s, creates, 'BUR');
  const createS = (performance.now() - t0) / 1000;
  return { idle, burst: await reading, created: creates, createS };
}

function burstFigures(b: BurstSamples | undefined): Figure[] {
  const { idle, burst } = b ?? {};
  const lat = (x: Sample | undefined) => (x ? `p50 ${x.result.p50.toFixed(1)} ms, p99 ${x.result.p99.toFixed(1)} ms over ${x.result.requests} requests (${x.result.errors} errors), load ${x.load.toFixed(1)}` : 'not measured');
  const detail = `idle: ${lat(idle)}; during ${b?.created ?? 0} creates (${b?.createS.toFixed(1) ?? '?'} s of the window): ${lat(burst)}`;
  const invalid = idle && burst && (idle.result.errors > 0 || burst.result.errors > 0) ? 'requests failed' : undefined;
  return [
    { id: 'builds.burst.p50-vs-idle', name: 'REST GET …/power_state p50 during a create burst ÷ idle (4 clients)', value: idle && burst ? burst.result.p50 / idle.result.p50 : null, unit: '×', detail, ...(invalid ? { invalid } : {}) },
    { id: 'builds.burst.p99-vs-idle', name: 'REST GET …/power_state p99 during a create burst ÷ idle (4 clients)', value: idle && burst ? burst.result.p99 / idle.result.p99 : null, unit: '×', target: { op: '<=', value: 3 }, ...(invalid ? { invalid } : {}) },
  ];
}

const rpsPerCpu = (s: Sample) => s.result.requests / Math.max(s.cpuS, 0.01);

function scenarioFigures(sc: Scenario, per: Map<string, Sample | undefined> | undefined): Figure[] {
  const today = per?.get('today');
  const base = per?.get('base');
  const id = `builds.${sc.id}`;
  const describe = (label: string, s: Sample | undefined) => (s
    ? `${label}: ${s.result.requests} requests in ${s.result.seconds.toFixed(1)} s (${s.result.errors} errors), ${s.result.rps.toFixed(0)} req/s, ${s.cpuS.toFixed(2)} CPU-s, ${rpsPerCpu(s).toFixed(0)} req/CPU-s, p50 ${s.result.p50.toFixed(1)} ms, p99 ${s.result.p99.toFixed(1)} ms, load ${s.load.toFixed(1)}`
    : `${label}: not measured`);
  const detail = `${describe('today', today)}; ${describe(`base ${BASE_COMMIT}`, base)}`;
  const invalid = today && base && (today.result.errors > 0 || base.result.errors > 0) ? 'requests failed' : undefined;
  return [
    { id: `${id}.rps`, name: `REST ${sc.name}: req/s, today`, value: today?.result.rps ?? null, unit: 'req/s', detail },
    { id: `${id}.rps-vs-base`, name: `REST ${sc.name}: req/s today ÷ ${BASE_COMMIT}`, value: today && base ? today.result.rps / base.result.rps : null, unit: '×', target: { op: '>=', value: 1 }, ...(invalid ? { invalid } : {}) },
    { id: `${id}.cpu-vs-base`, name: `REST ${sc.name}: req per CPU-second today ÷ ${BASE_COMMIT}`, value: today && base ? rpsPerCpu(today) / rpsPerCpu(base) : null, unit: '×', target: { op: '>=', value: sc.perCpuTarget }, ...(invalid ? { invalid } : {}) },
  ];
}

function callFigures(samples: Map<string, Map<string, Sample | undefined>>, seconds: number): Figure[] {
  const power = samples.get('power-16')?.get('today');
  const host = samples.get('host-16')?.get('today');
  const basePower = samples.get('power-16')?.get('base');
  const baseHost = samples.get('host-16')?.get('base');
  // to two decimals: the drift detector's one look per period lands in the window too (raw counts in the detail)
  const perReq = (s: Sample | undefined) => (s && s.result.requests ? Math.round((sum(s.calls) / s.result.requests) * 100) / 100 : null);
  const sets = host ? host.calls.System_Information_Query ?? 0 : null;
  const allowed = Math.ceil(seconds / FACTS_PERIOD_S) + 1;
  return [
    { id: 'builds.power.calls', name: 'SMAPI calls per GET …/power_state', value: perReq(power), unit: 'calls', target: { op: '<=', value: 1 },
      detail: `today ${JSON.stringify(power?.calls ?? {})} over ${power?.result.requests ?? 0} requests; base ${BASE_COMMIT}: ${perReq(basePower)?.toFixed(2)} per request ${JSON.stringify(basePower?.calls ?? {})}` },
    { id: 'builds.host.sets', name: `sets of host queries during ${seconds} s of GET /host (facts period ${FACTS_PERIOD_S} s)`, value: sets, unit: 'sets', target: { op: '<=', value: allowed },
      detail: `today ${host?.result.requests ?? 0} requests, calls ${JSON.stringify(host?.calls ?? {})}; base ${BASE_COMMIT}: ${perReq(baseHost)?.toFixed(2)} calls per request over ${baseHost?.result.requests ?? 0} requests` },
  ];
}

interface RssSamples {
  fresh: number;
  /** right after creating the guests over REST (the burst's heap still held) */
  afterCreates: number;
  /** restarted on the guests, settled (today's build only) */
  withGuests?: number;
}

function rssFigures(rss: Map<string, RssSamples>, guests: number): Figure[] {
  const t = rss.get('today');
  const b = rss.get('base');
  const mb = (v: number | undefined) => (v === undefined ? null : v / MB);
  const base = (k: keyof RssSamples) => `base ${BASE_COMMIT}: ${b?.[k] === undefined ? '?' : (b[k] / MB).toFixed(0)} MB`;
  return [
    { id: 'builds.rss.fresh', name: 'standalone idle RSS, fresh state', value: mb(t?.fresh), unit: 'MB', target: { op: '<=', value: 100 }, detail: base('fresh') },
    { id: 'builds.rss.guests', name: `standalone idle RSS, restarted holding ${guests} guests`, value: mb(t?.withGuests), unit: 'MB', target: { op: '<=', value: 110 }, detail: `lowest over 3 s from ${IDLE_SETTLE_MS / 1000} s after ready (the base is not restarted: f41a547 aborts starting on a state with guests)` },
    { id: 'builds.rss.after-creates', name: `standalone RSS right after creating ${guests} guests over REST`, value: mb(t?.afterCreates), unit: 'MB', detail: `${base('afterCreates')}; V8 keeps the heap the burst grew` },
  ];
}
