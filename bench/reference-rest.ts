/**
 * `npm run bench -- --only reference` (issue 38): our REST against the reference's own REST layer, on this
 * machine, in the same run. The reference is feilong's sdkwsgi app (from a feilong checkout or bare git
 * directory given by `--reference-src DIR` or ZVM_BENCH_FEILONG; never part of this repository) under uwsgi
 * with 2 processes × 4 threads, keep-alive HTTP/1.1 (served by the workers for up to 8 clients, through
 * uwsgi's http router past that: see Front), its SDK server stubbed by bench/lib/sdkserver-stub.ts (1 000
 * guests, answers at once). Ours is today's compiled standalone with the same guests created through
 * REST, its simulator in its own process (`--smapi-tcp`). The same load client (bench/load-client.ts,
 * keep-alive) loads each side in turn, interleaved; CPU is /proc utime+stime of the uwsgi master, workers and
 * router against that of the standalone process alone (neither the stub nor our simulator: both stand for
 * the host). A reference run counts only if each of its requests made its one SDK call (none for GET /).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAIN_JS, NODE_FLAGS } from '../src/cmd/self-command.js';
import { compiledBenchFile, runChild } from './lib/child.js';
import type { Figure } from './lib/figures.js';
import { tempDir } from './lib/operator-world.js';
import { childrenNamed, cpuSeconds } from './lib/proc-stats.js';
import { startSdkServerStub, type SdkServerStub } from './lib/sdkserver-stub.js';
import type { LoadResult, LoadSpec } from './load-client.js';
import { createGuests, start, stop, type Served } from './rest-builds.js';

const UWSGI = ['/usr/bin/uwsgi-core', '/usr/bin/uwsgi'];
const PLUGINS = ['/usr/lib/uwsgi/plugins/python3_plugin.so', '/usr/lib/uwsgi/plugins/http_plugin.so'];
/** what sdkwsgi imports beyond the standard library (Debian: python3-webob, -routes, -jsonschema, -jwt, -requests, -six, -netaddr, -yaml) */
const PY_MODULES = ['webob', 'routes', 'jsonschema', 'jwt', 'requests', 'six', 'netaddr', 'yaml'];
/** the reference deployment's shape the issue compares with: 2 processes × 4 threads */
const PROCESSES = 2;
const THREADS = 4;
const WARM_UP_MS = 1500;

interface Scenario {
  id: string;
  name: string;
  path: string;
  workers: number;
  /** target of ours ÷ the reference in req per CPU-second */
  perCpu?: number;
  /** target of ours ÷ the reference in req/s */
  rps?: number;
}

const SCENARIOS: Scenario[] = [4, 16].flatMap((c) => [
  { id: `root-${c}`, name: `GET / (${c} clients)`, path: '/', workers: c, perCpu: 3 },
  { id: `list-${c}`, name: `GET /guests (${c} clients)`, path: '/guests', workers: c, perCpu: 3 },
  { id: `power-${c}`, name: `GET /guests/{id}/power_state (${c} clients)`, path: '/guests/{id}/power_state', workers: c, perCpu: 5 },
  { id: `host-${c}`, name: `GET /host (${c} clients)`, path: '/host', workers: c, rps: 1 },
]);

/** One side under load: where it listens and the processes whose CPU is its cost. */
interface Side {
  label: 'ours' | 'reference';
  base: string;
  /** how the reference's clients reach its workers */
  front?: Front;
  pids(): number[];
  /** those of pids() that are an HTTP front (the reference's uwsgi http router), reported apart too */
  frontPids?(): number[];
}

interface Totals {
  requests: number;
  errors: number;
  seconds: number;
  cpuS: number;
  frontCpuS: number;
  front?: Front;
  /** reference only: SDK calls the stub answered, one per request if the SDK path ran */
  sdkCalls?: number;
  p50: number[];
  p99: number[];
  statuses: Record<string, number>;
}

export async function runReferenceRest(o: { guests: number; seconds: number; rounds: number; source?: string; deadline: number }): Promise<Figure[]> {
  const why = unavailable(o.source);
  if (why) return notMeasured(`not measured: ${why}`);
  const work = tempDir('reference');
  let ours: Served | undefined;
  let stub: SdkServerStub | undefined;
  const uwsgis: ChildProcess[] = [];
  try {
    prepareSource(o.source!, work);
    ours = await start({ label: 'today', main: MAIN_JS, nodeFlags: NODE_FLAGS }, ['--smapi-tcp']);
    process.stderr.write(`  reference: creating ${o.guests} guests on ours\n`);
    const ids = await createGuests(ours, o.guests, 'REF');
    stub = await startSdkServerStub(ids);
    writeConfig(work, stub.port);
    const served = ours;
    const oursSide: Side = { label: 'ours', base: served.restUrl, pids: () => [served.child.pid!] };
    const refSides = new Map<Front, Side>();
    for (const front of ['direct', 'router'] as const) {
      const port = await freePort();
      const uwsgi = startUwsgi(work, port, front);
      uwsgis.push(uwsgi);
      const base = `http://127.0.0.1:${port}`;
      await waitServing(base, uwsgi, 60_000);
      const pid = uwsgi.pid!;
      // the master and its children: workers (lazy-apps: each loads the app itself) and the http router
      refSides.set(front, { label: 'reference', base, front, pids: () => [pid, ...childrenNamed(pid)], frontPids: () => childrenNamed(pid).filter((p) => cmdline(p).startsWith('uWSGI http')) });
    }
    const sidesOf = (sc: Scenario) => [oursSide, refSides.get(sc.workers <= PROCESSES * THREADS ? 'direct' : 'router')!];
    const specOf = (sc: Scenario, side: Side, ms: number): LoadSpec => ({ base: side.base, method: 'GET', path: sc.path, ids, workers: sc.workers, durationMs: ms, maxRequests: 1_000_000 });
    // an unmeasured pass first: V8 compiles our request path on its first thousands of requests (on
    // background threads, counted in the process's CPU), and each uwsgi worker imports on its first ones
    process.stderr.write('  reference: warming both sides up (unmeasured)\n');
    for (const sc of SCENARIOS) for (const side of sidesOf(sc)) await measure(side, specOf(sc, side, WARM_UP_MS));
    const totals = new Map<string, Map<string, Totals>>();
    for (const sc of SCENARIOS) {
      const per = new Map<string, Totals>();
      totals.set(sc.id, per);
      const sides = sidesOf(sc);
      for (let r = 0; r < o.rounds && Date.now() < o.deadline; r++) {
        // alternate who goes first, so a drift of the machine's load falls on both sides
        for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
          process.stderr.write(`  reference: ${sc.name}, ${side.label}${side.front ? ` (${side.front})` : ''}, round ${r + 1}\n`);
          const calls0 = sumCalls(stub.calls);
          const m = await measure(side, specOf(sc, side, o.seconds * 1000));
          add(per, side, m, side.label === 'reference' ? sumCalls(stub.calls) - calls0 : undefined);
        }
      }
    }
    return SCENARIOS.flatMap((sc) => figuresOf(sc, totals.get(sc.id)));
  } finally {
    for (const u of uwsgis) await stopChild(u);
    await stub?.close();
    if (ours) await stop(ours);
    rmSync(work, { recursive: true, force: true });
  }
}

const sumCalls = (calls: Record<string, number>) => Object.values(calls).reduce((a, b) => a + b, 0);

/** Why the reference cannot run here, or undefined when it can. */
function unavailable(source: string | undefined): string | undefined {
  if (!source) return 'no feilong source (--reference-src DIR or ZVM_BENCH_FEILONG: a checkout or a bare git directory)';
  if (!existsSync(source)) return `${source} does not exist`;
  if (!UWSGI.some((u) => existsSync(u)) || !PLUGINS.every((p) => existsSync(p))) return `no uwsgi with its python3 and http plugins (apt-get install uwsgi-core uwsgi-plugin-python3)`;
  const py = spawnSync('/usr/bin/python3', ['-c', PY_MODULES.map((m) => `import ${m}`).join('; ')], { encoding: 'utf8' });
  if (py.status !== 0) return `/usr/bin/python3 lacks a module sdkwsgi imports: ${py.stderr.trim().split('\n').pop()}`;
  return undefined;
}

/** Copies feilong's Python packages into `work` (a bare git directory is archived first): the config file goes beside them. */
function prepareSource(source: string, work: string): void {
  let tree = resolve(source);
  if (existsSync(join(tree, 'objects')) && existsSync(join(tree, 'HEAD'))) {
    tree = join(work, 'archive');
    mkdirSync(tree);
    execFileSync('bash', ['-c', `git --git-dir="${resolve(source)}" archive HEAD zvmsdk zvmconnector smtLayer | tar -x -C "${tree}"`]);
  }
  if (!existsSync(join(tree, 'zvmsdk', 'sdkwsgi', 'zvmsdk-wsgi'))) throw new Error(`${source} holds no zvmsdk/sdkwsgi/zvmsdk-wsgi`);
  for (const pkg of ['zvmsdk', 'zvmconnector', 'smtLayer']) cpSync(join(tree, pkg), join(work, 'app', pkg), { recursive: true });
}

/**
 * zvmsdk.conf beside config.py (the first place feilong looks): auth none as our standalone's default,
 * the SDK server at the stub, logs (INFO, its default) into the work directory.
 */
function writeConfig(work: string, stubPort: number): void {
  const logs = join(work, 'logs');
  mkdirSync(logs, { recursive: true });
  writeFileSync(join(work, 'app', 'zvmsdk', 'zvmsdk.conf'), [
    '[logging]', `log_dir = ${logs}`,
    '[wsgi]', 'auth = none',
    '[sdkserver]', 'bind_addr = 127.0.0.1', `bind_port = ${stubPort}`,
    // required options without defaults; not read by the measured routes
    '[zvm]', 'user_profile = OSDFLT',
    '[network]', 'my_ip = 127.0.0.1',
    '',
  ].join('\n'));
}

/**
 * How clients reach the workers. `direct`: each worker thread serves HTTP/1.1 keep-alive itself (as many
 * clients as threads; no hop). `router`: uwsgi's HTTP router in front (keep-alive), where the deployment has
 * Apache: it holds every client connection and hands each request to a free thread over the uwsgi protocol;
 * needed past 8 clients, since a thread holds one keep-alive connection and the 9th client would wait for
 * one to close. The router's buffer as big as the workers' (65 535, the deployment's buffer-size): with its
 * default of a page it writes a 12 kB guest list in 4 KiB pieces and Nagle's algorithm meets the client's
 * delayed ACK, 40 ms a response.
 */
type Front = 'direct' | 'router';

/** uwsgi as feilong's data/uwsgi-zvmsdk.conf runs it (master, lazy apps, thunder lock, buffer size), 2 × 4. */
function startUwsgi(work: string, port: number, front: Front): ChildProcess {
  const bin = UWSGI.find((u) => existsSync(u))!;
  const app = join(work, 'app');
  const listen = front === 'direct'
    ? ['--http11-socket', `127.0.0.1:${port}`]
    : ['--http', `127.0.0.1:${port}`, '--http-keepalive', '--http-buffer-size', '65536'];
  return spawn(bin, [
    ...PLUGINS.flatMap((p) => ['--plugin', p]), ...listen, '--auto-procname', '--master', '--processes', String(PROCESSES), '--threads', String(THREADS),
    '--lazy-apps', '--enable-threads', '--thunder-lock', '--die-on-term', '--buffer-size', '65535',
    '--pythonpath', app, '--wsgi-file', join(app, 'zvmsdk', 'sdkwsgi', 'zvmsdk-wsgi'), '--logto', join(work, 'logs', `uwsgi-${front}.log`),
  ], { stdio: 'ignore', cwd: work });
}

/** A free loopback port for uwsgi (it cannot report a port 0 it bound). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function waitServing(base: string, child: ChildProcess, ms: number): Promise<void> {
  const until = Date.now() + ms;
  let last = '';
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`uwsgi exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${base}/`);
      last = `${res.status} ${await res.text()}`;
      if (res.status === 200) return;
    } catch (err) {
      last = String(err);
    }
    await sleep(250);
  }
  throw new Error(`the reference did not serve GET / in ${ms / 1000} s: ${last}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const cpuOf = (pids: number[]) => pids.reduce((sum, p) => {
  try {
    return sum + cpuSeconds(p);
  } catch {
    return sum; // gone meanwhile
  }
}, 0);

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

interface Measured {
  result?: LoadResult;
  cpuS: number;
  frontCpuS: number;
}

async function measure(side: Side, spec: LoadSpec): Promise<Measured> {
  const pids = side.pids();
  const front = side.frontPids?.() ?? [];
  const [cpu0, front0] = [cpuOf(pids), cpuOf(front)];
  const run = await runChild(compiledBenchFile('load-client.ts'), [JSON.stringify(spec)], { timeoutMs: spec.durationMs + 60_000 });
  return { result: run.lines[0] as unknown as LoadResult | undefined, cpuS: cpuOf(pids) - cpu0, frontCpuS: cpuOf(front) - front0 };
}

function add(per: Map<string, Totals>, side: Side, m: Measured, sdkCalls: number | undefined): void {
  const t = per.get(side.label) ?? { requests: 0, errors: 0, seconds: 0, cpuS: 0, frontCpuS: 0, front: side.front, p50: [], p99: [], statuses: {} };
  per.set(side.label, t);
  if (sdkCalls !== undefined) t.sdkCalls = (t.sdkCalls ?? 0) + sdkCalls;
  if (!m.result) {
    t.errors += 1; // the load client reported nothing: the figure is not valid
    return;
  }
  t.requests += m.result.requests;
  t.errors += m.result.errors;
  t.seconds += m.result.seconds;
  t.cpuS += m.cpuS;
  t.frontCpuS += m.frontCpuS;
  t.p50.push(m.result.p50);
  t.p99.push(m.result.p99);
  for (const [k, v] of Object.entries(m.result.statuses)) t.statuses[k] = (t.statuses[k] ?? 0) + v;
}

const rps = (t: Totals) => t.requests / Math.max(t.seconds, 1e-9);
const perCpu = (t: Totals) => t.requests / Math.max(t.cpuS, 0.01);

function figuresOf(sc: Scenario, per: Map<string, Totals> | undefined): Figure[] {
  const ours = per?.get('ours');
  const ref = per?.get('reference');
  const describe = (label: string, t: Totals | undefined) => (t && t.requests > 0
    ? `${label}${t.front ? ` (${t.front})` : ''}: ${t.requests} requests in ${t.seconds.toFixed(1)} s (${t.errors} errors ${JSON.stringify(t.statuses)}), ${rps(t).toFixed(0)} req/s, ${t.cpuS.toFixed(2)} CPU-s${t.frontCpuS ? ` (${t.frontCpuS.toFixed(2)} of them the http router's)` : ''}, ${perCpu(t).toFixed(0)} req/CPU-s, p50 ${t.p50.map((x) => x.toFixed(1)).join('/')} ms, p99 ${t.p99.map((x) => x.toFixed(1)).join('/')} ms${t.sdkCalls !== undefined ? `, ${t.sdkCalls} SDK calls` : ''}`
    : `${label}: not measured`);
  const both = ours && ref && ours.requests > 0 && ref.requests > 0 ? { ours, ref } : undefined;
  const withoutFront = both?.ref.frontCpuS ? ` (without the http router's CPU: ${(perCpu(both.ours) / (both.ref.requests / Math.max(both.ref.cpuS - both.ref.frontCpuS, 0.01))).toFixed(2)}×)` : '';
  const detail = `${describe('ours', ours)}; ${describe('reference', ref)}; ours ÷ reference per CPU-second ${both ? (perCpu(both.ours) / perCpu(both.ref)).toFixed(2) : '?'}×${withoutFront}; load ${loadavg()[0].toFixed(1)}`;
  const invalid = !both ? 'not measured: a side served nothing (out of time or the load client failed)'
    : both.ours.errors + both.ref.errors > 0 ? 'requests failed'
      // each reference request must have gone down its SDK path once (GET / makes no SDK call)
      : both.ref.sdkCalls !== both.ref.requests * (sc.path === '/' ? 0 : 1) ? `the reference made ${both.ref.sdkCalls} SDK calls for ${both.ref.requests} requests` : undefined;
  const mark = invalid ? { invalid } : {};
  const id = `reference.${sc.id}`;
  return [
    { id: `${id}.rps-vs-ref`, name: `REST ${sc.name}: req/s ours ÷ the reference`, value: both ? rps(both.ours) / rps(both.ref) : null, unit: '×', detail,
      ...(sc.rps ? { target: { op: '>=' as const, value: sc.rps }, ...mark } : {}) },
    { id: `${id}.cpu-vs-ref`, name: `REST ${sc.name}: req per CPU-second ours ÷ the reference`, value: both ? perCpu(both.ours) / perCpu(both.ref) : null, unit: '×',
      ...(sc.perCpu ? { target: { op: '>=' as const, value: sc.perCpu }, ...mark } : {}) },
  ];
}

/** The targeted figures, each a miss that says why nothing was measured. */
function notMeasured(why: string): Figure[] {
  return SCENARIOS.map((sc) => sc.perCpu
    ? { id: `reference.${sc.id}.cpu-vs-ref`, name: `REST ${sc.name}: req per CPU-second ours ÷ the reference`, value: null, unit: '×', target: { op: '>=' as const, value: sc.perCpu }, invalid: why }
    : { id: `reference.${sc.id}.rps-vs-ref`, name: `REST ${sc.name}: req/s ours ÷ the reference`, value: null, unit: '×', target: { op: '>=' as const, value: sc.rps! }, invalid: why });
}
