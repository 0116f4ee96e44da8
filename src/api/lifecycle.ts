/**
 * How a change to each spec field of a live object is handled (docs/fields.md, DESIGN "Every field keeps
 * its word"). Each kind declares its table beside its schema; the CRD's transition rules, the standalone
 * store's refusal, the reconcilers, `zvm-operator plan` and docs/fields.md all read it from there.
 */
import type { TSchema } from '@sinclair/typebox';

/**
 * live: converged on the running object; atRestart: written to the user directory now, the guest shows
 * RestartRequired naming it until it has logged off and on; fixed: refused once the object exists.
 */
export type Lifecycle = 'live' | 'atRestart' | 'fixed';

export interface FieldLifecycle {
  lifecycle: Lifecycle;
  /** why, in the z/VM (or Kubernetes) facts that decide it; docs/fields.md shows it */
  why: string;
  /** the field's value is handled as one: the fields inside it need no declaration of their own */
  whole?: boolean;
}

/** Spec field paths ('ipl.device', 'disks[].size') to their lifecycle. */
export type LifecycleTable = Record<string, FieldLifecycle>;

export const live = (why: string, whole = false): FieldLifecycle => ({ lifecycle: 'live', why, ...(whole ? { whole } : {}) });
export const atRestart = (why: string, whole = false): FieldLifecycle => ({ lifecycle: 'atRestart', why, ...(whole ? { whole } : {}) });
/** A fixed value is fixed with everything inside it. */
export const fixed = (why: string): FieldLifecycle => ({ lifecycle: 'fixed', why, whole: true });

type JsonSchema = Record<string, unknown>;

/**
 * Every field path of an object schema: the properties of nested objects, and of the objects a list
 * holds (`disks[].size`). Maps (patternProperties) and unions are leaves.
 */
export function schemaPaths(schema: TSchema | JsonSchema, prefix = ''): string[] {
  const s = schema as JsonSchema;
  const props = s.type === 'object' ? (s.properties as Record<string, JsonSchema> | undefined) : undefined;
  if (!props) return [];
  return Object.entries(props).flatMap(([name, child]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    const inner = child.type === 'array' ? (child.items as JsonSchema) : child;
    return [path, ...schemaPaths(inner, child.type === 'array' ? `${path}[]` : path)];
  });
}

/** The declaration that governs a path: its own, or that of an enclosing field handled whole. */
export function lifecycleOf(table: LifecycleTable, path: string): FieldLifecycle | undefined {
  if (table[path]) return table[path];
  const parent = parentPath(path);
  if (parent === undefined) return undefined;
  const outer = lifecycleOf(table, parent);
  return outer?.whole ? outer : undefined;
}

function parentPath(path: string): string | undefined {
  const at = path.lastIndexOf('.');
  return at < 0 ? undefined : path.slice(0, at).replace(/\[\]$/, '');
}

/** Schema paths with no declaration, and declarations naming no schema path (a test keeps both empty). */
export function lifecycleGaps(spec: TSchema, table: LifecycleTable): { undeclared: string[]; unknown: string[] } {
  const paths = schemaPaths(spec);
  const known = new Set(paths);
  return {
    undeclared: paths.filter((p) => !lifecycleOf(table, p)),
    unknown: Object.keys(table).filter((p) => !known.has(p)),
  };
}

/** The fixed fields that an outer fixed field does not already cover, outside lists (a list item has no identity here). */
export function fixedPaths(table: LifecycleTable): string[] {
  return Object.entries(table)
    .filter(([path, d]) => d.lifecycle === 'fixed' && !path.includes('[]'))
    .map(([path]) => path)
    .filter((path) => !coveredByOuterFixed(table, path));
}

function coveredByOuterFixed(table: LifecycleTable, path: string): boolean {
  const parent = parentPath(path);
  return parent !== undefined && (table[parent]?.lifecycle === 'fixed' || coveredByOuterFixed(table, parent));
}

/** The paths of a table with one lifecycle, in declaration order. */
export function pathsWith(table: LifecycleTable, lifecycle: Lifecycle): string[] {
  return Object.entries(table).filter(([, d]) => d.lifecycle === lifecycle).map(([p]) => p);
}

/** The message of a refused change, the same in the CRD, the standalone store and REST. */
export function fixedMessage(path: string): string {
  return `${path} is immutable`;
}

/** CEL: the value at `path` (under self/oldSelf) is present, e.g. has(self.ipl) && has(self.ipl.device). */
function presentCel(root: string, path: string): string {
  const parts = path.split('.');
  return parts.map((_, i) => `has(${root}.${parts.slice(0, i + 1).join('.')})`).join(' && ');
}

/** A CEL transition rule on spec: the field keeps its presence and its value. */
export function fixedRuleCel(path: string): string {
  const now = presentCel('self', celPath(path));
  const before = presentCel('oldSelf', celPath(path));
  return `(${now}) == (${before}) && (!(${now}) || self.${celPath(path)} == oldSelf.${celPath(path)})`;
}

/** `import` is a CEL reserved word: the apiserver exposes such a property as `__import__`. */
function celPath(path: string): string {
  return path.split('.').map((p) => (p === 'import' ? '__import__' : p)).join('.');
}

/** The fixed fields whose value differs between two specs (standalone's and REST's refusal). */
export function changedFixedFields(table: LifecycleTable, before: unknown, after: unknown, equal: (a: unknown, b: unknown) => boolean): string[] {
  return fixedPaths(table).filter((path) => !equal(valueAt(before, path), valueAt(after, path)));
}

export function valueAt(obj: unknown, path: string): unknown {
  let v: unknown = obj;
  for (const p of path.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
  return v;
}

/** A changed spec field and how its change is handled (`zvm-operator plan`). */
export interface FieldChange {
  path: string;
  lifecycle: Lifecycle;
}

/** The top-level spec fields whose value differs, each with its lifecycle (an undeclared one counts as fixed). */
export function changedFields(table: LifecycleTable, before: unknown, after: unknown, equal: (a: unknown, b: unknown) => boolean): FieldChange[] {
  const keys = new Set([...Object.keys((before as object) ?? {}), ...Object.keys((after as object) ?? {})]);
  return [...keys]
    .filter((k) => !equal(valueAt(before, k), valueAt(after, k)))
    .map((path) => ({ path, lifecycle: lifecycleOf(table, path)?.lifecycle ?? 'fixed' }));
}
