/**
 * FCP templates over the store: a template is a ZFcpTemplate named by its id; writes wait for the
 * controller to observe them (docs/rest-interface.md §1.3 #13–17). Bad input is refused before any write.
 */
import { randomUUID } from 'node:crypto';
import { API_VERSION, expandFcpDevices, fcpDevicesProblem, type FcpUsage, type ZFcpTemplate, type ZFcpTemplateSpec } from '../../api/index.js';
import { fcpLedger } from '../../controllers/index.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import { sleep } from '../../runtime/clock.js';
import type { StateStore } from '../../store/port.js';
import type { RestConfig } from '../config.js';
import { feilongErrors } from '../feilong-error.js';
import type { WriteAndWait } from '../write-and-wait.js';
import { volumeErrors } from './errors.js';
import { restOwned } from '../ownership.js';

const KIND = 'ZFcpTemplate';
/** Rounds of one usage change against concurrent ones; each reads the template again. */
const MAX_ATTEMPTS = 20;
const CONFLICT_BACKOFF_MAX_MS = 250;

/** What the create/edit bodies carry, already coerced; undefined = unchanged (edit). */
export interface TemplateInput {
  name?: string;
  description?: string;
  fcpDevices?: string;
  hostDefault?: boolean;
  storageProviders?: string[];
  minFcpPathsCount?: number;
}

export function createTemplateService(deps: { store: StateStore; config: RestConfig; writes: WriteAndWait }) {
  const { store, config, writes } = deps;

  async function list(): Promise<ZFcpTemplate[]> {
    return (await store.list<ZFcpTemplate>(KIND)).items.sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''));
  }

  async function require(id: string): Promise<ZFcpTemplate> {
    const t = id.length > 0 && id.length <= 253 ? await store.get<ZFcpTemplate>(KIND, { name: id }) : undefined;
    if (!t) throw volumeErrors.templateNotFound(id);
    return t;
  }

  /** The input rules the schema cannot state: range syntax and order, paths vs min_fcp_paths_count. */
  function check(spec: ZFcpTemplateSpec): void {
    const problem = fcpDevicesProblem(spec.fcpDevices ?? '');
    if (problem) throw feilongErrors.invalidArg(problem);
    const paths = expandFcpDevices(spec.fcpDevices ?? '').length;
    if (spec.minFcpPathsCount !== undefined && spec.minFcpPathsCount > paths) {
      throw volumeErrors.saveTemplate(`min_fcp_paths_count ${spec.minFcpPathsCount} is larger than fcp device path count ${paths}`);
    }
  }

  /** One host default, and one template per storage provider: others give them up. */
  async function releaseExclusive(except: string, spec: ZFcpTemplateSpec): Promise<void> {
    const sps = new Set(spec.storageProviders ?? []);
    for (const t of await list()) {
      if (t.metadata.name === except) continue;
      const patch: Partial<ZFcpTemplateSpec> = {};
      if (spec.hostDefault && t.spec.hostDefault) patch.hostDefault = false;
      const kept = (t.spec.storageProviders ?? []).filter((s) => !sps.has(s));
      if (kept.length !== (t.spec.storageProviders ?? []).length) patch.storageProviders = kept;
      if (Object.keys(patch).length > 0) await store.patch(KIND, { name: t.metadata.name }, { spec: patch });
    }
  }

  /** The template after a write, once the controller has observed it (templates report no failure to wait for). */
  const observed = { ready: () => true };

  async function create(input: TemplateInput & { name: string }): Promise<ZFcpTemplate> {
    const spec: ZFcpTemplateSpec = {
      name: input.name,
      description: input.description ?? '',
      fcpDevices: input.fcpDevices ?? '',
      hostDefault: input.hostDefault ?? false,
      storageProviders: input.storageProviders ?? [],
      host: config.defaultHost,
      fcpUsage: [],
      ...(input.minFcpPathsCount !== undefined ? { minFcpPathsCount: input.minFcpPathsCount } : {}),
    };
    check(spec);
    const id = randomUUID();
    await releaseExclusive(id, spec);
    const obj: ZFcpTemplate = { apiVersion: API_VERSION, kind: KIND, metadata: restOwned({ name: id }), spec };
    return writes.create(obj, { ...observed, what: `FCP Multipath Template ${id} to be synced`, notFound: () => volumeErrors.templateNotFound(id) });
  }

  async function edit(id: string, input: TemplateInput): Promise<ZFcpTemplate> {
    const t = await require(id);
    const defined = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<ZFcpTemplateSpec>;
    const spec: ZFcpTemplateSpec = { ...t.spec, ...defined };
    check(spec);
    const kept = new Set(expandFcpDevices(spec.fcpDevices ?? '').flat());
    const rows = await fcpLedger.readLedger(store, t);
    const dropped = new Set(rows.map((r) => r.fcp).filter((f) => !kept.has(f)));
    const busy = fcpLedger.allocatedAmong(rows, dropped);
    if (busy.length > 0) {
      throw volumeErrors.editTemplate(`FCP devices (${fcpLedger.formatFcpRanges(busy.map((r) => r.fcp))}) are allocated and cannot be removed from template ${id}`);
    }
    await releaseExclusive(id, spec);
    return writes.patch(t, { spec: defined }, { ...observed, ifUnchanged: true, what: `FCP Multipath Template ${id} to be synced`, notFound: () => volumeErrors.templateNotFound(id) });
  }

  async function remove(id: string): Promise<void> {
    const t = await require(id);
    const busy = (await fcpLedger.readLedger(store, t)).filter(fcpLedger.isAllocated);
    if (busy.length > 0) {
      throw volumeErrors.deleteTemplate(`FCP devices (${fcpLedger.formatFcpRanges(busy.map((r) => r.fcp))}) are allocated from template ${id}`);
    }
    try {
      await store.delete(KIND, { name: id }, { resourceVersion: t.metadata.resourceVersion });
    } catch (err) {
      if (err instanceof NotFoundError) return;
      throw err;
    }
  }

  /** The template for a connection: named, else the storage provider's, else the host default. */
  async function forConnection(id: string | null | undefined, storageProvider: string | null | undefined): Promise<ZFcpTemplate | undefined> {
    if (id) return require(id);
    const all = await list();
    return (storageProvider ? all.find((t) => (t.spec.storageProviders ?? []).includes(storageProvider)) : undefined)
      ?? all.find((t) => t.spec.hostDefault);
  }

  /**
   * A change of FCP usage (reserve, release, set_fcp_usage): computed on the ledger as its reconciler
   * derives it now, declared in the template's spec.fcpUsage under the resourceVersion it was computed
   * from (two requests never both take one FCP: the second conflicts, reads again and sees the first),
   * then answered once the reconciler's ledger in status shows it. `change` gives no rows for "nothing to declare".
   */
  async function changeUsage<R>(id: string, change: (rows: FcpUsage[], t: ZFcpTemplate) => { rows?: FcpUsage[]; value: R }): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      const t = await require(id);
      const { rows, value } = change(await fcpLedger.readLedger(store, t), t);
      if (!rows) return value;
      try {
        await writes.patch(t, { spec: { fcpUsage: fcpLedger.declaredFrom(rows) } }, {
          ...observed, ifUnchanged: true, unchangedIsDone: true, what: `the FCP ledger of template ${id} to show the change`, notFound: () => volumeErrors.templateNotFound(id),
        });
        return value;
      } catch (err) {
        if (!(err instanceof ConflictError) || attempt >= MAX_ATTEMPTS) throw err;
        // the store's reads may trail its last write by a group commit: give them time to see the winner's
        await sleep(Math.min(CONFLICT_BACKOFF_MAX_MS, 2 ** attempt));
      }
    }
  }

  return { list, require, create, edit, remove, forConnection, changeUsage };
}

export type TemplateService = ReturnType<typeof createTemplateService>;
