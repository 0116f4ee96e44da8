/**
 * `zvm-operator migrate feilong`: turns a feilong installation's databases into resources. Without
 * --apply it is a dry run (manifests and the summary only); with --apply it writes them to the store
 * of a stopped standalone instance (--state-dir) or a cluster (--kubeconfig), idempotently.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_HOST } from '../api/index.js';
import { InvalidInputError } from '../errors.js';
import { createInProcessCaller, createSmapiClient, createSmapiHypervisor, type Hypervisor } from '../hypervisor/index.js';
import { createSimHost } from '../hypervisor/sim/index.js';
import { createLogger, type Logger } from '../log.js';
import { executeApply, planApply } from '../migrate/apply.js';
import { writeManifests } from '../migrate/manifests.js';
import { computeMigration } from '../migrate/migrate.js';
import { renderSummary, summaryJson } from '../migrate/report.js';
import { createKubeStore } from '../store/kube/index.js';
import type { StateStore } from '../store/port.js';
import { loadKubeconfig } from './kube-common.js';
import { openStateStore, type StateStoreKind } from './state-store.js';

export interface MigrateOptions {
  dbDir: string;
  host: string;
  namespace: string;
  output?: string;
  apply?: boolean;
  /** a standalone instance's state directory (state.db, sim.db); it must not be running */
  stateDir?: string;
  /** the standalone instance's store kind (its --store): sqlite (state.db, default) or json (store.json) */
  store?: StateStoreKind;
  kubeconfig?: string;
  /** HOST:PORT of a SMAPI server for the live directory; credentials from the environment */
  smapi?: string;
  imageRepository: string;
  rootVdev: string;
  orphan?: boolean;
}

export interface MigrateResult {
  summary: string;
  exitCode: number;
}

interface Target {
  store?: StateStore;
  hypervisor?: Hypervisor;
  close(): Promise<void>;
}

/** The simulated host of a standalone state directory, read from a copy so its file stays as it is. */
function simulatedHostOf(stateDir: string): { hypervisor: Hypervisor; close(): Promise<void> } | undefined {
  // sim.db (SQLite, standalone's default) or an older instance's sim.json
  const name = ['sim.db', 'sim.json'].find((f) => existsSync(join(stateDir, f)));
  if (!name) return undefined;
  const tmp = mkdtempSync(join(tmpdir(), 'zvm-migrate-'));
  for (const suffix of ['', '-wal']) if (existsSync(join(stateDir, name + suffix))) copyFileSync(join(stateDir, name + suffix), join(tmp, name + suffix));
  const sim = createSimHost({ statePath: join(tmp, name) });
  const hypervisor = createSmapiHypervisor({ hostName: DEFAULT_HOST, caller: createInProcessCaller({ handler: sim }) });
  return { hypervisor, close: async () => { await sim.close(); rmSync(tmp, { recursive: true, force: true }); } };
}

function smapiHostOf(endpoint: string, log: Logger): Hypervisor {
  const m = /^(.+):(\d+)$/.exec(endpoint);
  if (!m) throw new InvalidInputError(`--smapi ${endpoint} is not HOST:PORT`);
  const userid = process.env.ZVM_SMAPI_USERID;
  const password = process.env.ZVM_SMAPI_PASSWORD;
  if (!userid || !password) throw new InvalidInputError('--smapi needs ZVM_SMAPI_USERID and ZVM_SMAPI_PASSWORD in the environment');
  const caller = createSmapiClient({ host: m[1], port: Number(m[2]), auth: { userid, password }, poolSize: 2, log });
  return createSmapiHypervisor({ hostName: 'migrate', caller, log });
}

function openTarget(o: MigrateOptions, log: Logger): Target {
  if (o.stateDir && o.kubeconfig) throw new InvalidInputError('give --state-dir or --kubeconfig, not both');
  if (o.apply && !o.stateDir && !o.kubeconfig) throw new InvalidInputError('--apply needs --state-dir (standalone, stopped) or --kubeconfig');
  const store = o.stateDir
    ? openStateStore(o.stateDir, o.store, log)
    : o.kubeconfig ? createKubeStore({ kubeconfig: loadKubeconfig(o.kubeconfig), log, fieldManager: 'zvm-operator-migrate' }) : undefined;
  const sim = !o.smapi && o.stateDir ? simulatedHostOf(o.stateDir) : undefined;
  const hypervisor = o.smapi ? smapiHostOf(o.smapi, log) : sim?.hypervisor;
  return {
    store,
    hypervisor,
    async close() {
      if (o.smapi) await hypervisor?.close();
      await sim?.close();
      await store?.close();
    },
  };
}

/** The whole command; returns the summary and the exit code (1 when anything conflicts). */
export async function migrateFeilong(o: MigrateOptions, log: Logger = createLogger()): Promise<MigrateResult> {
  if (!existsSync(o.dbDir)) throw new InvalidInputError(`--db-dir ${o.dbDir} does not exist`);
  const target = openTarget(o, log);
  try {
    const migration = await computeMigration({
      dbDir: o.dbDir, host: o.host, namespace: o.namespace, hypervisor: target.hypervisor,
      repository: o.imageRepository, rootVdev: o.rootVdev, orphan: o.orphan,
    });
    const decisions = target.store
      ? await planApply(target.store, migration.items)
      : migration.items.map((item) => ({ item, action: 'create' as const }));
    const applied = Boolean(o.apply && target.store);
    const summary = renderSummary(migration, decisions, { dbDir: o.dbDir, host: o.host, namespace: o.namespace, applied });
    if (o.output) writeManifests(o.output, migration.items, { text: summary, json: summaryJson(migration, decisions) });
    if (applied && target.store) await executeApply(target.store, decisions, (line) => log.info(line));
    return { summary, exitCode: decisions.some((d) => d.action === 'conflict') ? 1 : 0 };
  } finally {
    await target.close();
  }
}

export async function runMigrateFeilong(o: MigrateOptions): Promise<void> {
  const result = await migrateFeilong(o);
  process.stdout.write(result.summary);
  process.exitCode = result.exitCode;
}
