/**
 * Dry run of the state port, the twin of hypervisor/dry-run.ts: a plan runs the controllers' own code,
 * whose store writes (a class binding, an FCP ledger) land here, in memory, and are read back by the
 * same run; the live store is only read. Nothing is checked (no resourceVersion, no schema): one plan
 * is one caller, and what it wrote is thrown away with it.
 */
import type { Resource } from '../api/index.js';
import { NotFoundError, NotSupportedError } from '../errors.js';
import { applyMergePatch, copyJson } from './common/json.js';
import { matchesLabels, matchesNamespace } from './common/selector.js';
import { keyOf, keyString, type ListOptions, type ListResult, type MergePatch, type ObjectKey, type StateStore } from './port.js';

export interface StoreWrite {
  verb: 'create' | 'update' | 'updateStatus' | 'patch' | 'patchStatus' | 'delete';
  kind: string;
  key: string;
}

export interface DryRunStore extends StateStore {
  /** what the run would have written, in order */
  writes: StoreWrite[];
}

const id = (kind: string, key: ObjectKey) => `${kind}/${keyString(key)}`;

export function createDryRunStore(live: StateStore): DryRunStore {
  /** the object as the run left it; undefined: deleted */
  const written = new Map<string, Resource | undefined>();
  const writes: StoreWrite[] = [];

  async function get<T extends Resource>(kind: string, key: ObjectKey): Promise<T | undefined> {
    const k = id(kind, key);
    if (written.has(k)) return copyJson(written.get(k)) as T | undefined;
    return live.get<T>(kind, key);
  }

  function record<T extends Resource>(verb: StoreWrite['verb'], obj: T): T {
    const kind = obj.kind;
    written.set(id(kind, keyOf(obj)), copyJson(obj));
    writes.push({ verb, kind, key: keyString(keyOf(obj)) });
    return copyJson(obj);
  }

  async function current(kind: string, key: ObjectKey): Promise<Resource> {
    const obj = await get(kind, key);
    if (!obj) throw new NotFoundError(`${kind} ${keyString(key)} not found`);
    return obj;
  }

  return {
    writes,
    get,
    async list<T extends Resource>(kind: string, options?: ListOptions): Promise<ListResult<T>> {
      const res = await live.list<T>(kind, options);
      const selected = (o: Resource | undefined): o is T => o?.kind === kind && matchesNamespace(o, options?.namespace) && matchesLabels(o, options?.labelSelector);
      const unwritten = res.items.filter((o) => !written.has(id(kind, keyOf(o))));
      // what the run wrote of the kind (listed live or made by the run), as it left it; deleted ones are gone
      return { ...res, items: [...unwritten, ...[...written.values()].filter(selected)].map((o) => copyJson(o)) };
    },
    create: async (obj) => record('create', obj),
    update: async (obj) => record('update', { ...(await current(obj.kind, keyOf(obj))), metadata: obj.metadata, spec: obj.spec }),
    updateStatus: async (obj) => record('updateStatus', obj),
    async patch(kind, key, patch: MergePatch) {
      const obj = await current(kind, key);
      return record('patch', { ...(applyMergePatch(obj, { metadata: patch.metadata, spec: patch.spec }) as typeof obj), status: obj.status });
    },
    async patchStatus(kind, key, status: MergePatch) {
      const obj = await current(kind, key);
      return record('patchStatus', { ...obj, status: applyMergePatch(obj.status ?? {}, status) as typeof obj.status });
    },
    async delete(kind, key) {
      written.set(id(kind, key), undefined);
      writes.push({ verb: 'delete', kind, key: keyString(key) });
    },
    watch: () => {
      throw new NotSupportedError('a dry-run store does not watch');
    },
    close: async () => undefined, // the live store belongs to its owner
  } as DryRunStore;
}
