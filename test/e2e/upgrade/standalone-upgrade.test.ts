/**
 * Standalone's state from release 0.1.0 (test/fixtures/release-0.1.0/standalone/: the SQLite store and
 * the built-in simulated host, as the release's `standalone` left them) opened by this build: every
 * guest is Ready with the status the release left, the simulator (a separate process, --smapi-tcp,
 * logging each SMAPI request) receives no write, no guest logged off or on again, and the state database
 * holds every object at v1beta1 from the start (its one-time storage-version migration on open).
 */
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSimHost, type SimStateJson } from '../../../src/hypervisor/sim/index.js';
import { openSqliteFile } from '../../../src/durable/index.js';
import { runZvm, spawnZvm } from '../../builders/zvm.js';
import { freePorts } from '../../kube/processes.js';
import { FIXTURE_DIR, RELEASE, type KubeObject } from './release.js';
import { reconcileEveryGuest, settled } from './settle.js';
import { describeOutcome, logons, moved, NOTHING_MOVED, stepOutcome } from './outcome.js';
import { countCallLog, total } from './smapi-calls.js';

const captured = (JSON.parse(readFileSync(join(FIXTURE_DIR, 'standalone-guests.json'), 'utf8')) as { items: KubeObject[] }).items;
let work = '';

/** The simulated host's state in a standalone state directory (sim.db), read by the simulator from a copy. */
/** How many rows of the state database are at each apiVersion, and its schema (read beside the running process). */
function storedRows(dir: string): { apiVersions: Record<string, number>; schema: unknown } {
  const db = openSqliteFile(join(dir, 'state.db'), { readonly: true });
  try {
    const rows = db.prepare("SELECT json_extract(json, '$.apiVersion') AS v, COUNT(*) AS n FROM objects GROUP BY v").all() as { v: string; n: number }[];
    const schema = (db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: number } | undefined)?.value;
    return { apiVersions: Object.fromEntries(rows.map((r) => [r.v, r.n])), schema };
  } finally {
    db.close();
  }
}

async function hostState(dir: string): Promise<SimStateJson> {
  const copy = join(work, `sim-${Date.now()}.db`);
  copyFileSync(join(dir, 'sim.db'), copy);
  const sim = createSimHost({ statePath: copy });
  try {
    return sim.snapshot();
  } finally {
    await sim.close();
  }
}


beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'zvm-upgrade-solo-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

test(`release ${RELEASE}'s standalone state opens in this version with no SMAPI write and no guest restarted`, async () => {
  const dir = join(work, 'state');
  cpSync(join(FIXTURE_DIR, 'standalone'), dir, { recursive: true });
  const before = logons(await hostState(dir));
  expect(storedRows(dir)).toEqual({ apiVersions: { 'zvm.dev/v1alpha1': captured.length + 2 }, schema: 1 });
  const callLog = join(work, 'calls.jsonl');
  const [port, adminPort] = await freePorts(2);
  const server = `http://127.0.0.1:${adminPort}`;
  const proc = spawnZvm(['standalone', '--state-dir', dir, '--port', String(port), '--admin-port', String(adminPort), '--smapi-tcp', '--drift-period', '2s'], {
    stdio: 'ignore', env: { ...process.env, ZVM_SIM_CALL_LOG: callLog },
  });
  let guests: KubeObject[];
  try {
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    await settled({ metricsUrl: `${server}/metrics`, expect: { zhost: 1, zvswitch: 1 }, calls: () => (existsSync(callLog) ? countCallLog(readFileSync(callLog, 'utf8')) : {}), watch: [] });
    // before any write of this test: the open alone moved every row (the guests, the ZHost, the ZVswitch)
    expect(storedRows(dir)).toEqual({ apiVersions: { 'zvm.dev/v1beta1': captured.length + 2 }, schema: 2 });
    // every guest once more, spec unchanged: an annotation of no meaning to the operator, applied as a user would
    const touched = captured.map((g) => ({ apiVersion: g.apiVersion, kind: g.kind, metadata: { name: g.metadata.name, namespace: g.metadata.namespace, annotations: { 'upgrade-test.zvm.dev/step': '1' } }, spec: g.spec }));
    writeFileSync(join(work, 'touched.yaml'), touched.map((t) => JSON.stringify(t)).join('\n---\n'));
    const annotate = async () => void (await runZvm(['apply', '-f', join(work, 'touched.yaml'), '--server', server]));
    await reconcileEveryGuest({ metricsUrl: `${server}/metrics`, annotate, guests: captured.length, watch: [] });
    guests = (JSON.parse((await runZvm(['get', 'zguest', '-o', 'json', '--server', server])).stdout) as { items: KubeObject[] }).items;
    proc.kill('SIGTERM');
    await exited;
  } finally {
    proc.kill('SIGKILL');
  }
  const calls = existsSync(callLog) ? countCallLog(readFileSync(callLog, 'utf8')) : {};
  const r = stepOutcome({ captured, listed: guests, calls, before, after: logons(await hostState(dir)) });
  console.log(describeOutcome(`standalone ${RELEASE} -> this version`, captured.length, r));
  expect(total(calls)).toBeGreaterThan(0); // the log is live: the new version did ask the host
  expect(moved(r)).toEqual(NOTHING_MOVED);
  expect(before.size).toBeGreaterThan(0);
}, 240_000);
