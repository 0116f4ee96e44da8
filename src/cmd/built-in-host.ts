import type { Resource, ZHost } from '../api/index.js';
import { InvalidSpecError } from '../errors.js';
import { applyMergePatch, jsonEqual } from '../store/common/json.js';
import type { MergePatch, ObjectKey, StateStore } from '../store/port.js';

/** The connection fields of a ZHost: how the operator reaches its SMAPI server and management guest. */
const CONNECTION_FIELDS = ['smapi', 'management'] as const;

/**
 * Why a write of the built-in host's spec cannot be taken, or undefined: standalone's built-in host is the
 * simulator of this process, not made from its ZHost's spec, so a SMAPI server or management guest set
 * there would never be used. Another ZHost reaches one (cmd/standalone-hosts.ts).
 */
export function builtInHostProblem(name: string, before: ZHost['spec'] | undefined, after: ZHost['spec'] | undefined): InvalidSpecError | undefined {
  const field = CONNECTION_FIELDS.find((f) => !jsonEqual(before?.[f], after?.[f]));
  if (!field) return undefined;
  const message = `spec.${field} cannot be set on the built-in host ${name}: standalone simulates it in this process; create another ZHost to reach a SMAPI server or management guest`;
  return new InvalidSpecError(`invalid ZHost: /spec/${field}: ${message}`, [{ path: `/spec/${field}`, message }]);
}

/** The store as the admin API writes it: a write that would set the built-in host's connection is refused, naming the field. */
export function withBuiltInHost(store: StateStore, name: string): StateStore {
  const isBuiltIn = (kind: string, key: ObjectKey) => kind === 'ZHost' && key.name === name;
  const stored = async () => (await store.get<ZHost>('ZHost', { name }))?.spec;
  const refuse = (problem: InvalidSpecError | undefined): void => {
    if (problem) throw problem;
  };
  return {
    ...store,
    async create<T extends Resource>(obj: T): Promise<T> {
      if (isBuiltIn(obj.kind, obj.metadata)) refuse(builtInHostProblem(name, undefined, (obj as unknown as ZHost).spec));
      return store.create(obj);
    },
    async update<T extends Resource>(obj: T): Promise<T> {
      if (isBuiltIn(obj.kind, obj.metadata)) refuse(builtInHostProblem(name, await stored(), (obj as unknown as ZHost).spec));
      return store.update(obj);
    },
    async patch<T extends Resource>(kind: string, key: ObjectKey, patch: MergePatch, options?: { resourceVersion?: string }): Promise<T> {
      if (isBuiltIn(kind, key) && patch.spec !== undefined) {
        const before = await stored();
        refuse(builtInHostProblem(name, before, applyMergePatch(before ?? {}, patch.spec) as ZHost['spec']));
      }
      return store.patch(kind, key, patch, options);
    },
  };
}
