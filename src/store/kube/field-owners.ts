/**
 * Who owns which fields, read from the apiserver's managedFields (server-side field management).
 * The REST sidecar uses it so that a REST request does not silently overwrite a field that kubectl or
 * Argo CD manages: GitOps would put it back at the next sync and the two would pull against each other.
 * The ZGuest controller uses it to name who wrote a plan's approval annotation.
 */
import { ZvmError } from '../../errors.js';

/** One entry of metadata.managedFields as the apiserver sends it. */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  /** when the manager last changed its fields (RFC 3339) */
  time?: string;
  fieldsV1?: Record<string, unknown>;
}

/**
 * Pure: the manager that owns the field at `path` (e.g. metadata, annotations, zvm.dev/approved-plan),
 * the one that wrote it last when several share it; undefined when no entry owns it.
 */
export function managerOfField(entries: readonly ManagedFieldsEntry[], path: readonly string[]): string | undefined {
  const owns = (e: ManagedFieldsEntry) => {
    let node: unknown = e.fieldsV1;
    for (const name of path) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[`${FIELD_PREFIX}${name}`] : undefined;
    return node !== undefined;
  };
  const owners = entries.filter((e) => e.manager && owns(e)).sort((a, b) => (a.time ?? '').localeCompare(b.time ?? ''));
  return owners.at(-1)?.manager;
}

export interface ForeignOwner {
  manager: string;
  operation: string;
  /** the spec fields of the request this manager owns, as `spec.<name>` */
  fields: string[];
}

const SPEC = 'f:spec';
const FIELD_PREFIX = 'f:';

function ownedSpecFields(entry: ManagedFieldsEntry): string[] {
  const spec = entry.fieldsV1?.[SPEC];
  if (typeof spec !== 'object' || spec === null) return [];
  return Object.keys(spec).filter((k) => k.startsWith(FIELD_PREFIX)).map((k) => k.slice(FIELD_PREFIX.length));
}

/**
 * Pure: the managers outside `allowed` that own one of `fields` (top-level spec field names), or any spec
 * field when `fields` is undefined (a delete removes them all). Status entries never count.
 */
export function computeForeignOwners(entries: readonly ManagedFieldsEntry[], allowed: ReadonlySet<string>, fields?: readonly string[]): ForeignOwner[] {
  const wanted = fields ? new Set(fields) : undefined;
  const owners: ForeignOwner[] = [];
  for (const entry of entries) {
    if (entry.subresource || !entry.manager || allowed.has(entry.manager)) continue;
    const owned = ownedSpecFields(entry).filter((f) => !wanted || wanted.has(f));
    if (owned.length > 0) owners.push({ manager: entry.manager, operation: entry.operation ?? 'Update', fields: owned.map((f) => `spec.${f}`) });
  }
  return owners;
}

/**
 * A write refused because another field manager owns the fields it would change. A CONFLICT, but not a
 * ConflictError: retrying cannot help, so the loops that retry resourceVersion conflicts must not.
 */
export class FieldOwnedError extends ZvmError {
  readonly owners: ForeignOwner[];
  constructor(what: string, owners: ForeignOwner[]) {
    const who = owners.map((o) => `"${o.manager}" (${o.fields.join(', ')})`).join(' and ');
    super('CONFLICT', `${what} is managed by ${who}; change it there, or let REST take the fields over (zvm-operator rest --take-over)`);
    this.owners = owners;
  }
}
