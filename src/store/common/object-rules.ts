/**
 * The pure write rules of the stores that enforce the port themselves (embedded and SQLite): what a
 * create, an update or a status update turns the stored object into. No I/O and no clock of their own,
 * so every rule is table-testable.
 */
import { apiVersionOf, changedFixedFields, fixedMessage, sameGroup, validateResource, type KindDefinition, type ObjectMeta, type Resource } from '../../api/index.js';
import { ConflictError, InvalidSpecError } from '../../errors.js';
import { DEFAULT_NAMESPACE, definitionOf, definitionOfObject, scopedKey, tidyMeta } from './kinds.js';
import type { ObjectKey } from '../port.js';
import { copyJson, jsonEqual } from './json.js';

export { definitionOf, definitionOfObject };

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Fields only the store sets; callers' values for them are ignored (uid must match when given). */
const MANAGED_META = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp'] as const;

/** Cluster-scoped keys never carry a namespace; namespaced keys default to DEFAULT_NAMESPACE. */
export function normalizeKey(kind: string, key: ObjectKey): ObjectKey {
  return scopedKey(definitionOf(kind), key);
}

/** RFC 3339 at second precision, the way the Kubernetes API writes timestamps. */
export function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function checkPrecondition(stored: Resource, resourceVersion: string | undefined): void {
  if (resourceVersion !== undefined && resourceVersion !== '' && resourceVersion !== stored.metadata.resourceVersion) {
    throw new ConflictError(
      `${stored.kind} ${stored.metadata.name}: resourceVersion ${resourceVersion} is stale (current ${stored.metadata.resourceVersion})`,
    );
  }
}

function invalid(kind: string, path: string, message: string): InvalidSpecError {
  return new InvalidSpecError(`invalid ${kind}: ${path}: ${message}`, [{ path, message }]);
}

function checkNames(obj: Resource, def: KindDefinition): void {
  const { name, namespace } = obj.metadata ?? {};
  if (typeof name !== 'string' || name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    throw invalid(obj.kind, '/metadata/name', 'must be a lowercase RFC 1123 subdomain');
  }
  if (def.scope === 'Cluster' && namespace !== undefined && namespace !== '') {
    throw invalid(obj.kind, '/metadata/namespace', `${obj.kind} is cluster-scoped and takes no namespace`);
  }
  if (def.scope === 'Namespaced' && namespace !== undefined && (namespace.length > 63 || !DNS_LABEL.test(namespace))) {
    throw invalid(obj.kind, '/metadata/namespace', 'must be a lowercase RFC 1123 label');
  }
}

export interface CreateStamp {
  uid: string;
  now: Date;
}

/** A foreign kind keeps its own top-level fields (a Secret's data and type); ours have spec and status only. */
function foreignFields(def: KindDefinition, obj: Resource): Record<string, unknown> {
  if (!def.foreign) return {};
  const { status: _status, ...rest } = obj as Resource & Record<string, unknown>;
  return rest;
}

/** Our kinds are stored at the storage version whichever served version was written, as the apiserver stores them. */
function storedApiVersion(def: KindDefinition, obj: Resource): string {
  return def.foreign ? obj.apiVersion : apiVersionOf(def);
}

/** The object as first stored: server fields assigned, status dropped (it belongs to the status subresource). */
export function prepareCreate(input: Resource, stamp: CreateStamp): Resource {
  const def = definitionOfObject(input);
  const obj = copyJson(input);
  checkNames(obj, def);
  const meta: ObjectMeta = tidyMeta({ ...obj.metadata });
  for (const field of MANAGED_META) delete meta[field];
  if (def.scope === 'Cluster') delete meta.namespace;
  else meta.namespace = meta.namespace || DEFAULT_NAMESPACE;
  meta.uid = stamp.uid;
  meta.generation = 1;
  meta.creationTimestamp = rfc3339(stamp.now);
  const next: Resource = { ...foreignFields(def, obj), apiVersion: obj.apiVersion, kind: obj.kind, metadata: meta, spec: obj.spec };
  validateResource(next);
  return { ...next, apiVersion: storedApiVersion(def, obj) };
}

export interface UpdateOutcome {
  next: Resource;
  /** false for a no-op write: no new resourceVersion, no event. */
  changed: boolean;
}

/**
 * Applies a main-resource write: metadata (labels, annotations, finalizers, others) and spec come from
 * `incoming`, status and the managed metadata fields stay as stored; generation bumps on a spec change.
 */
export function prepareUpdate(stored: Resource, incoming: Resource): UpdateOutcome {
  const def = definitionOf(stored.kind);
  const obj = copyJson(incoming);
  // another served version of the group is the same object (the apiserver converts; here one schema serves all)
  if (obj.kind !== stored.kind || !sameGroup(obj.apiVersion, stored.apiVersion)) {
    throw invalid(stored.kind, '/kind', 'kind and apiVersion cannot change');
  }
  const inMeta = obj.metadata ?? ({} as ObjectMeta);
  if (inMeta.name !== stored.metadata.name) throw invalid(stored.kind, '/metadata/name', 'field is immutable');
  if (inMeta.uid !== undefined && inMeta.uid !== stored.metadata.uid) throw invalid(stored.kind, '/metadata/uid', 'field is immutable');
  const meta: ObjectMeta = tidyMeta({ ...inMeta });
  for (const field of MANAGED_META) delete meta[field];
  for (const field of MANAGED_META) {
    if (stored.metadata[field] !== undefined) meta[field] = stored.metadata[field] as never;
  }
  if (def.scope === 'Namespaced') meta.namespace = stored.metadata.namespace;
  else delete meta.namespace;
  checkFinalizers(stored, meta);
  checkImmutableSpec(def, stored, obj);
  const specChanged = !jsonEqual(obj.spec, stored.spec);
  if (specChanged) meta.generation = (stored.metadata.generation ?? 0) + 1;
  const next: Resource = { ...foreignFields(def, obj), apiVersion: storedApiVersion(def, stored), kind: stored.kind, metadata: meta, spec: obj.spec };
  if (stored.status !== undefined) next.status = stored.status;
  return finish(stored, next);
}

/** Applies a status-subresource write: only status changes, generation never moves. */
export function prepareStatusUpdate(stored: Resource, status: unknown): UpdateOutcome {
  const next: Resource = { apiVersion: stored.apiVersion, kind: stored.kind, metadata: stored.metadata, spec: stored.spec };
  const copied = copyJson(status);
  if (copied !== undefined && copied !== null) next.status = copied;
  return finish(stored, next);
}

/** Fields the kind's lifecycle table declares fixed (the CRD enforces the same with a CEL transition rule). */
function checkImmutableSpec(def: KindDefinition, stored: Resource, incoming: Resource): void {
  const [field] = changedFixedFields(def.fields, stored.spec, incoming.spec, jsonEqual);
  if (field !== undefined) throw invalid(stored.kind, `/spec/${field.replace(/\./g, '/')}`, fixedMessage(field));
}

/** An object being deleted may only lose finalizers: adding one would postpone a deletion already asked for. */
function checkFinalizers(stored: Resource, meta: ObjectMeta): void {
  if (!stored.metadata.deletionTimestamp) return;
  const before = new Set(stored.metadata.finalizers ?? []);
  const added = (meta.finalizers ?? []).filter((f) => !before.has(f));
  if (added.length > 0) {
    throw invalid(stored.kind, '/metadata/finalizers', `no new finalizers can be added while the object is being deleted (${added.join(', ')})`);
  }
}

function finish(stored: Resource, next: Resource): UpdateOutcome {
  validateResource(next);
  return { next, changed: !jsonEqual(next, stored) };
}

/** True when an object is being deleted and nothing holds it any more. */
export function isReleased(obj: Resource): boolean {
  return Boolean(obj.metadata.deletionTimestamp) && (obj.metadata.finalizers ?? []).length === 0;
}
