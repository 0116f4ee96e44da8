/**
 * A host whose SMAPI goes away (README "When a host is unreachable"): standalone as the real process,
 * the simulated host as its own `zvm-operator sim` process over SMAPI TCP (`--sim-address`). The
 * host is killed (SIGKILL) in the middle of a create burst and, later, of a delete burst, kept down
 * past the outage grace and started again on its port and state file. Held to: every guest goes
 * Ready=Unknown (HostUnreachable) and comes back Ready; REST refuses writes during the outage with
 * the SMAPI-down envelope, live reads get the same envelope without the host being asked, and reads
 * from state answer 200; after recovery no acknowledged create is missing, no acknowledged delete
 * is back, nothing refused was done, no guest exists twice.
 * The figures (kill → Unknown, REST answer time, host back → all Ready) are printed, not asserted.
 */
import { jest } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ZGuest, ZHost } from '../../../src/api/index.js';
import { waitUntil, type LoggedProcess } from '../../kube/processes.js';
import {
  awaitConvergence, crash, Ledger, listGuests, logMatch, simStateFile, spawnGroup, startOperator, stopGracefully, violations,
  type HostView, type Operator, type Outcome,
} from './crash-storm-support.js';
import { tempStateDir } from './helpers.js';

jest.setTimeout(600_000);

const BOUND_MS = 180_000;
const GRACE_MS = 10_000; // DEFAULT_OUTAGE_GRACE_MS: the host stays down at least this long past the kill
const CREDENTIALS = { ZVM_SIM_USERID: 'OUTAGE', ZVM_SIM_PASSWORD: 'outage-pw' };
const guestBody = (userid: string) => ({ guest: { userid, vcpus: 1, memory: 512, disk_list: [{ size: '1g', is_boot_disk: true }] } });

interface Answer {
  status: number;
  body: { overallRC?: number; modID?: number; rc?: number; errmsg?: string };
  ms: number;
}

async function call(op: Operator, method: string, path: string, body?: unknown): Promise<Answer> {
  const start = Date.now();
  const res = await fetch(`${op.restUrl}${path}`, {
    method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Answer['body'], ms: Date.now() - start };
}

/** The ledger word for an answer: 200 done, 202 accepted for when the host answers (also done), 503 refused. */
function outcomeOf(method: 'POST' | 'DELETE', a: Answer | undefined): Outcome {
  const [done, refused, unknown] = method === 'POST' ? (['created', 'create-refused', 'create-unknown'] as const) : (['deleted', 'delete-refused', 'delete-unknown'] as const);
  if (a?.status === 200 || a?.status === 202) return done;
  return a?.status === 503 ? refused : unknown;
}

const readyOf = (g: ZGuest) => g.status?.conditions?.find((c) => c.type === 'Ready');
const isUnknown = (g: ZGuest) => readyOf(g)?.status === 'Unknown' && readyOf(g)?.reason === 'HostUnreachable' && g.status?.phase === 'Unknown';

describe('a host whose SMAPI goes away (simulator process killed and started again)', () => {
  const state = tempStateDir();
  const hostDir = join(state.dir, 'host');
  const simDb = join(hostDir, 'sim.db');
  let sim: LoggedProcess | undefined;
  let op: Operator | undefined;
  afterAll(async () => {
    if (op) await stopGracefully(op.proc);
    if (sim) await stopGracefully(sim);
    state.cleanup();
  });

  const startSim = async (port: string): Promise<string> => {
    sim = spawnGroup('sim', ['sim', '--port', port, '--state', simDb], join(hostDir, 'sim.log'), CREDENTIALS);
    return (await logMatch(sim, /"smapiPort":(\d+)/, 0))[1]!;
  };

  /**
   * Fires `calls` at once and kills the host at the first acknowledgement; checks what each surface
   * says during the outage, starts the host again and waits for recovery. Returns the figures.
   */
  async function outageDuring(o: Operator, host: HostView, ledger: Ledger, port: string, calls: ['POST' | 'DELETE', string][], probe: { readUserid: string; newUserid: string }): Promise<string> {
    let killed: Promise<number> | undefined;
    const burst = Promise.all(calls.map(async ([method, userid]) => {
      const a = await (method === 'POST' ? call(o, 'POST', '/guests', guestBody(userid)) : call(o, 'DELETE', `/guests/${userid}`)).catch(() => undefined);
      ledger.record(userid, outcomeOf(method, a));
      if (a?.status !== 200 && a?.status !== 202 && a?.status !== 503) throw new Error(`${method} ${userid}: ${a?.status} ${a?.body.errmsg}`);
      if (a.status === 200) killed ??= crash(sim!).then(() => Date.now());
      return a.status;
    }));
    const killedAt = await waitFor(() => killed, 'the first acknowledgement of the burst');

    // every guest of the host says Unknown within a drift period past the grace
    await waitUntil(async () => (await listGuests(o)).every(isUnknown), { what: 'every guest Ready=Unknown (HostUnreachable)', timeoutMs: BOUND_MS, watch: [o.proc], intervalMs: 200 });
    const unknownAfter = Date.now() - killedAt;
    const zhost = await (await fetch(`${o.adminUrl}/resources/zhost/default`)).json() as ZHost;
    expect(zhost.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'HostUnreachable' });
    expect(zhost.status).toMatchObject({ simulated: false, endpoint: `smapi://127.0.0.1:${port}` });

    // REST: writes refused at once with the SMAPI-down envelope, reads from state answer
    const action = await call(o, 'POST', `/guests/${probe.readUserid}/action`, { action: 'start' });
    expect(action).toMatchObject({ status: 503, body: { overallRC: 500, modID: 1, rc: -110 } });
    const create = await call(o, 'POST', '/guests', guestBody(probe.newUserid));
    expect(create).toMatchObject({ status: 503, body: { rc: -110 } });
    ledger.record(probe.newUserid, 'create-refused');
    const del = await call(o, 'DELETE', `/guests/${probe.readUserid}`);
    expect(del).toMatchObject({ status: 503, body: { rc: -110 } });
    ledger.record(probe.readUserid, 'delete-refused');
    expect((await call(o, 'GET', '/guests')).status).toBe(200);
    expect((await call(o, 'GET', '/images')).status).toBe(200);
    expect((await call(o, 'GET', '/smapi_health')).status).toBe(200);
    // live reads: refused by REST's host lookup from the ZHost's declared outage, the host not asked (no retries)
    const live = await call(o, 'GET', `/guests/${probe.readUserid}/power_state_real`);
    const hostRead = await call(o, 'GET', '/host');
    for (const read of [live, hostRead]) {
      expect(read).toMatchObject({ status: 503, body: { overallRC: 500, modID: 1, rc: -110 } });
      expect(read.body.errmsg).toContain('SMAPI of host default is unreachable (since');
      expect(read.body.errmsg).toContain('nothing was asked of it');
    }
    // the burst's calls are all answered: 200 before the outage, 202 (accepted) or 503 during it
    const answers = await burst;

    const down = Date.now() - killedAt;
    if (down < GRACE_MS) await new Promise((r) => setTimeout(r, GRACE_MS - down));
    await startSim(port);
    const backAt = Date.now();
    const { guests, onHost } = await awaitConvergence(o, host, BOUND_MS);
    const readyAfter = Date.now() - backAt;
    expect(violations(ledger, guests, onHost)).toEqual([]);
    expect(new Set(guests.map((g) => g.spec.userid.toUpperCase())).size).toBe(guests.length);
    let h: ZHost | undefined;
    await waitUntil(async () => {
      h = await (await fetch(`${o.adminUrl}/resources/zhost/default`)).json() as ZHost;
      return h.status?.guestCount === onHost.size && h.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
    }, { what: 'ZHost Ready with the guest count of the host', timeoutMs: BOUND_MS, watch: [o.proc], intervalMs: 300 })
      .catch((err: unknown) => {
        throw new Error(`${(err as Error).message.slice(0, 200)}\nZHost status: ${JSON.stringify(h?.status)}\non host: ${onHost.size}`);
      });
    const count = (s: number) => answers.filter((x) => x === s).length;
    return `kill → all Unknown ${(unknownAfter / 1000).toFixed(1)} s; REST during the outage: action ${action.ms} ms, create ${create.ms} ms, delete ${del.ms} ms, live read ${live.ms} ms, GET /host ${hostRead.ms} ms; `
      + `host back → all Ready ${(readyAfter / 1000).toFixed(1)} s; burst answers 200×${count(200)} 202×${count(202)} 503×${count(503)}`;
  }

  it('marks every guest Unknown, refuses writes at once, and loses nothing across a kill in a create burst and in a delete burst', async () => {
    mkdirSync(hostDir, { recursive: true });
    const port = await startSim('0');
    op = await startOperator(join(state.dir, 'operator'), [
      '--store', 'json', '--sim-address', `127.0.0.1:${port}`, '--sim-userid', CREDENTIALS.ZVM_SIM_USERID, '--sim-password', CREDENTIALS.ZVM_SIM_PASSWORD,
      '--drift-period', '2s',
    ]);
    const host = simStateFile(simDb);
    const ledger = new Ledger();
    for (const userid of ['OUT01', 'OUT02', 'OUT03']) {
      expect((await call(op, 'POST', '/guests', guestBody(userid))).status).toBe(200);
      ledger.record(userid, 'created');
    }
    await awaitConvergence(op, host, BOUND_MS);

    const creates = ['OUT11', 'OUT12', 'OUT13', 'OUT14', 'OUT15', 'OUT16'].map((u): ['POST', string] => ['POST', u]);
    const first = await outageDuring(op, host, ledger, port, creates, { readUserid: 'OUT01', newUserid: 'OUT21' });

    const present = [...host.onHost()].filter((u) => u !== 'OUT01').sort();
    const deletes = present.map((u): ['DELETE', string] => ['DELETE', u]);
    const second = await outageDuring(op, host, ledger, port, deletes, { readUserid: 'OUT01', newUserid: 'OUT22' });
    console.log(`host outage (simulator process killed):\n  create burst: ${first}\n  delete burst: ${second}`);
  });
});

/** Resolves with what `get` returns once it returns a promise (polled; bounded). */
async function waitFor<T>(get: () => Promise<T> | undefined, what: string): Promise<T> {
  for (let i = 0; i < BOUND_MS / 50; i++) {
    const p = get();
    if (p) return p;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
