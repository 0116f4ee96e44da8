/**
 * What the kube adapter sends and what it hands back. Objects written by create and update are
 * validated with the project's schema before they reach the apiserver (the same check the embedded
 * store makes, so an error names the same schema paths); status writes are left to the apiserver's
 * check (statusBody). Answers lose fields the port does not model (managedFields).
 */
import { validateResource, type KindDefinition, type ObjectMeta, type Resource } from '../../api/index.js';
import { InvalidSpecError } from '../../errors.js';
import { copyJson } from '../common/json.js';
import { DEFAULT_NAMESPACE, definitionOf, definitionOfObject, scopedKey, tidyMeta } from '../common/kinds.js';
import { keyString, type ObjectKey } from '../port.js';

/** Set by the apiserver; a caller's values are dropped on create (the apiserver would refuse some). */
const SERVER_META = ['uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'managedFields'] as const;

export { definitionOf, definitionOfObject, scopedKey as normalizeKey };

/** "ZGuest ns/name", for messages. */
export function describeKey(def: KindDefinition, key: ObjectKey): string {
  return `${def.kind} ${keyString(key)}`;
}

/** Metadata as it travels: ObjectMeta plus fields the port does not model (managedFields, …). */
type WireMeta = ObjectMeta & Record<string, unknown>;

function withoutStatus(obj: Resource): Resource {
  const { status: _ignored, ...rest } = obj;
  return rest;
}

function checkScope(obj: Resource, def: KindDefinition): void {
  const ns = obj.metadata.namespace;
  if (def.scope === 'Cluster' && ns !== undefined && ns !== '') {
    const message = `${obj.kind} is cluster-scoped and takes no namespace`;
    throw new InvalidSpecError(`invalid ${obj.kind}: /metadata/namespace: ${message}`, [{ path: '/metadata/namespace', message }]);
  }
}

/** The body of a create: server fields and status dropped (status belongs to the subresource), validated. */
export function createBody(input: Resource): { def: KindDefinition; body: Resource } {
  const def = definitionOfObject(input);
  checkScope(input, def);
  const obj = withoutStatus(copyJson(input));
  const meta: WireMeta = tidyMeta(obj.metadata);
  for (const field of SERVER_META) delete meta[field];
  if (def.scope === 'Cluster') delete meta.namespace;
  else meta.namespace = meta.namespace || DEFAULT_NAMESPACE;
  const body: Resource = { ...obj, metadata: meta };
  validateResource(body);
  return { def, body };
}

/**
 * The body of a replace of the main resource: validated without status (the apiserver ignores it there).
 * managedFields are left out so that the apiserver keeps its own.
 */
export function updateBody(input: Resource): { def: KindDefinition; body: Resource } {
  const def = definitionOfObject(input);
  checkScope(input, def);
  const obj = withoutStatus(copyJson(input));
  const meta: WireMeta = tidyMeta(obj.metadata);
  delete meta.managedFields;
  const body: Resource = { ...obj, metadata: meta };
  validateResource(body);
  return { def, body };
}

/**
 * The body of a replace of the status subresource. Not validated here: status is the controllers' own
 * output, and the apiserver checks the whole object against the CRD's structural schema on every status
 * write (a 422 comes back as InvalidSpecError with its paths). A client-side check paid for an ajv
 * compile and a walk of the object per write, a tenth of the controller's CPU per guest (issue 23).
 */
export function statusBody(input: Resource): { def: KindDefinition; body: Resource } {
  const def = definitionOfObject(input);
  const obj = copyJson(input);
  const meta: WireMeta = { ...obj.metadata };
  delete meta.managedFields;
  return { def, body: { ...obj, metadata: meta } };
}

/** An object as the port hands it out: a fresh copy, without managedFields or null placeholders. */
export function fromServer<T extends Resource>(raw: unknown): T {
  const obj = raw as Resource;
  if (obj?.metadata) {
    const meta = obj.metadata as WireMeta;
    delete meta.managedFields;
    for (const [field, value] of Object.entries(meta)) if (value === null) delete meta[field];
  }
  return obj as T;
}

/** The resourceVersion a merge patch carries in its metadata, if any (a precondition on the apiserver). */
export function patchResourceVersion(patch: Record<string, unknown>): string | undefined {
  const meta = patch.metadata;
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return undefined;
  const rv = (meta as Record<string, unknown>).resourceVersion;
  return typeof rv === 'string' && rv !== '' ? rv : undefined;
}
