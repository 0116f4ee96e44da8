/**
 * The crash-storm harness: standalone mode as a real process (its own process group), driven over
 * real HTTP with storms of guest creates and deletes and killed with SIGKILL in the middle of them.
 * It keeps the book of what the REST interface acknowledged, so that after a restart the test can
 * hold the operator to it: no acknowledged create missing, no acknowledged delete back, no guest on
 * the host without its resource.
 */
import type { ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSqliteFile } from '../../../src/durable/index.js';
import type { ZGuest } from '../../../src/api/index.js';
import { spawnZvm } from '../../builders/zvm.js';
import { tailLog, waitUntil, type LoggedProcess } from '../../kube/processes.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../../..');
export const START_BOUND_MS = 120_000;

const groups = new Set<number>();
process.on('exit', () => {
  for (const pid of groups) killGroup(pid); // a failed test leaves no process behind
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/** `zvm-operator <args>` (compiled), leader of its own process group, output appended to `logPath`. */
export function spawnGroup(name: string, args: string[], logPath: string, env: Record<string, string> = {}): LoggedProcess {
  const fd = openSync(logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawnZvm(args, { stdio: ['ignore', fd, fd], detached: true, cwd: REPO, env: { ...process.env, ...env } });
  } finally {
    closeSync(fd);
  }
  const pid = child.pid!;
  groups.add(pid);
  let status: number | string | undefined;
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      status ??= code ?? signal ?? 'unknown';
      resolve(status);
    });
  });
  return { name, logPath, child, exited, exitStatus: () => status };
}

/** SIGKILL to the whole process group (the operator and any simulator it started); resolves once the leader is gone. */
export async function crash(proc: LoggedProcess): Promise<void> {
  killGroup(proc.child.pid!);
  groups.delete(proc.child.pid!);
  await proc.exited;
}

/** SIGTERM to the leader only (a clean stop); resolves once it is gone. */
export async function stopGracefully(proc: LoggedProcess): Promise<void> {
  if (proc.exitStatus() === undefined) proc.child.kill('SIGTERM');
  await proc.exited;
  groups.delete(proc.child.pid!);
}

/** The first match of `pattern` in the log written since `offset`, once it appears. */
export async function logMatch(proc: LoggedProcess, pattern: RegExp, offset: number): Promise<RegExpExecArray> {
  let found: RegExpExecArray | null = null;
  await waitUntil(async () => {
    found = pattern.exec(readFileSync(proc.logPath, 'utf8').slice(offset));
    return found !== null;
  }, { what: `${pattern} in the ${proc.name} log`, timeoutMs: START_BOUND_MS, watch: [proc], intervalMs: 100 });
  return found!;
}

export function logSize(path: string): number {
  try {
    return readFileSync(path).length;
  } catch {
    return 0;
  }
}

export interface Operator {
  proc: LoggedProcess;
  restUrl: string;
  adminUrl: string;
}

/** Starts standalone mode on ephemeral ports and waits until it serves. */
export async function startOperator(stateDir: string, extraArgs: string[] = []): Promise<Operator> {
  mkdirSync(stateDir, { recursive: true });
  const logPath = join(stateDir, 'operator.log');
  const offset = logSize(logPath);
  const proc = spawnGroup('standalone', ['standalone', '--port', '0', '--admin-port', '0', '--state-dir', stateDir, '--auth', 'none', ...extraArgs], logPath);
  const ready = await logMatch(proc, /"restUrl":"([^"]+)","adminUrl":"([^"]+)"[^\n]*standalone mode ready/, offset);
  return { proc, restUrl: ready[1]!, adminUrl: ready[2]! };
}

/**
 * What the client was told about one userid, in order. `unknown`: the call was cut off by the crash.
 * `refused`: answered that nothing was done (a host whose SMAPI is unreachable): it must stay so.
 */
export type Outcome = 'created' | 'deleted' | 'create-unknown' | 'delete-unknown' | 'create-refused' | 'delete-refused';

export class Ledger {
  private readonly history = new Map<string, Outcome[]>();

  record(userid: string, outcome: Outcome): void {
    this.history.set(userid, [...(this.history.get(userid) ?? []), outcome]);
  }

  /** 'present' / 'absent' when the last word the client got was an acknowledgement; undefined when a cut-off call may have changed it. */
  expected(userid: string): 'present' | 'absent' | undefined {
    const last = this.history.get(userid)?.at(-1);
    if (last === 'created' || last === 'delete-refused') return 'present';
    if (last === 'deleted' || last === 'create-refused') return 'absent';
    return undefined;
  }

  userids(): string[] {
    return [...this.history.keys()].sort();
  }

  count(outcome: Outcome): number {
    return [...this.history.values()].reduce((n, h) => n + h.filter((o) => o === outcome).length, 0);
  }
}

/** One storm call: resolves true for a 200, false for any other answer; rejects when the connection died. */
async function guestCall(restUrl: string, method: 'POST' | 'DELETE', userid: string): Promise<{ ok: boolean; status: number; errmsg?: string }> {
  const res = method === 'POST'
    ? await fetch(`${restUrl}/guests`, {
      method, headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ guest: { userid, vcpus: 1, memory: 512, disk_list: [{ size: '1g', is_boot_disk: true }] } }),
    })
    : await fetch(`${restUrl}/guests/${userid}`, { method });
  const body = (await res.json()) as { errmsg?: string };
  return { ok: res.status === 200, status: res.status, errmsg: body.errmsg };
}

export interface StormPlan {
  creates: string[];
  deletes: string[];
  /** SIGKILL the operator's process group once this many calls have been acknowledged */
  killAfterAcks: number;
}

export interface StormResult {
  acked: number;
  cutOff: number;
  /** answers other than 200 that came before the crash: each is a bug in this setting */
  refused: string[];
}

/**
 * Fires every create and delete at once, kills the operator when the plan says, and records every
 * outcome in the ledger. A call answered with anything but 200 before the kill is reported.
 */
export async function storm(op: Operator, plan: StormPlan, ledger: Ledger, kill: () => Promise<void>): Promise<StormResult> {
  let acked = 0;
  let killed: Promise<void> | undefined;
  const refused: string[] = [];
  const one = async (method: 'POST' | 'DELETE', userid: string): Promise<void> => {
    const [ack, unknown] = method === 'POST' ? (['created', 'create-unknown'] as const) : (['deleted', 'delete-unknown'] as const);
    try {
      const r = await guestCall(op.restUrl, method, userid);
      if (r.ok && !killed) {
        ledger.record(userid, ack);
        acked += 1;
        if (acked >= plan.killAfterAcks) killed = kill();
        return;
      }
      // an answer that raced the kill is still an answer; only a 200 counts as acknowledged
      if (r.ok) ledger.record(userid, ack);
      else {
        ledger.record(userid, unknown);
        if (!killed) refused.push(`${method} ${userid}: ${r.status} ${r.errmsg ?? ''}`);
      }
    } catch {
      ledger.record(userid, unknown);
    }
  };
  await Promise.all([...plan.creates.map((u) => one('POST', u)), ...plan.deletes.map((u) => one('DELETE', u))]);
  killed ??= kill();
  await killed;
  return { acked, cutOff: plan.creates.length + plan.deletes.length - acked, refused };
}

export interface HostView {
  /** userids defined on the simulated host, from its state file */
  onHost(): Set<string>;
}

/** The simulator's state file: the host's directory as it is on disk (every acknowledged change is). */
export function simStateFile(path: string): HostView {
  if (path.endsWith('.db')) return simDatabase(path);
  return {
    onHost() {
      try {
        const doc = JSON.parse(readFileSync(path, 'utf8')) as { entries: { userid: string }[] };
        return new Set(doc.entries.map((e) => e.userid));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Set();
        throw err;
      }
    },
  };
}

/** The simulator's SQLite database (sim.db), read through its own read-only connection as another process would. */
function simDatabase(path: string): HostView {
  return {
    onHost() {
      if (!existsSync(path)) return new Set();
      const db = openSqliteFile(path, { readonly: true });
      try {
        return new Set(db.pluck('SELECT key FROM directory_entries').all() as string[]);
      } finally {
        db.close();
      }
    },
  };
}

export async function listGuests(op: Operator): Promise<ZGuest[]> {
  const res = await fetch(`${op.adminUrl}/resources/zguest?namespace=default`);
  if (res.status !== 200) throw new Error(`list ZGuests: ${res.status}`);
  return (await res.json()) as ZGuest[];
}

function converged(guests: ZGuest[], onHost: Set<string>): boolean {
  const settled = guests.every((g) => !g.metadata.deletionTimestamp
    && g.status?.observedGeneration === g.metadata.generation
    && g.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
  const wanted = new Set(guests.map((g) => g.spec.userid.toUpperCase()));
  return settled && wanted.size === onHost.size && [...wanted].every((u) => onHost.has(u));
}

/** Waits until every resource is Ready with its guest on the host, and the host has nothing else. */
export async function awaitConvergence(op: Operator, host: HostView, timeoutMs: number): Promise<{ guests: ZGuest[]; onHost: Set<string> }> {
  let last: { guests: ZGuest[]; onHost: Set<string> } = { guests: [], onHost: new Set() };
  await waitUntil(async () => {
    last = { guests: await listGuests(op), onHost: host.onHost() };
    return converged(last.guests, last.onHost);
  }, { what: 'resources and host to converge', timeoutMs, watch: [op.proc], intervalMs: 300 }).catch((err: unknown) => {
    const summary = last.guests.map((g) => `${g.spec.userid}:${g.metadata.deletionTimestamp ? 'deleting' : g.status?.phase ?? '-'}`).join(' ');
    throw new Error(`${(err as Error).message}\nresources: ${summary}\non host: ${[...last.onHost].join(' ')}\n${tailLog(op.proc, 3000)}`);
  });
  return last;
}

/** What the ledger forbids: an acknowledged create missing or an acknowledged delete back, on either side. */
export function violations(ledger: Ledger, guests: ZGuest[], onHost: Set<string>): string[] {
  const resources = new Set(guests.map((g) => g.spec.userid.toUpperCase()));
  const found: string[] = [];
  for (const userid of ledger.userids()) {
    const expected = ledger.expected(userid);
    if (expected === 'present' && !resources.has(userid)) found.push(`${userid}: acknowledged create, resource missing`);
    if (expected === 'present' && !onHost.has(userid)) found.push(`${userid}: acknowledged create, not on the host`);
    if (expected === 'absent' && resources.has(userid)) found.push(`${userid}: acknowledged delete, resource back`);
    if (expected === 'absent' && onHost.has(userid)) found.push(`${userid}: acknowledged delete, back on the host`);
  }
  for (const userid of onHost) if (!resources.has(userid)) found.push(`${userid}: on the host without a resource`);
  return found;
}

export function tail(proc: LoggedProcess): string {
  return tailLog(proc, 3000);
}
