/** What a migration produces: resources to write (with the status they carry) and what could not be mapped. */
import type { Resource } from '../api/index.js';

/** Marks every resource a migration wrote; only such resources get their status (re)written on a resumed run. */
export const MIGRATED_FROM = 'zvm.dev/migrated-from';
/** The feilong row a resource came from, e.g. `sdk_guest.sqlite guests LNX00001`. */
export const FEILONG_SOURCE = 'zvm.dev/feilong-source';

export interface MigrationItem {
  /** the resource without status (what a GitOps manifest holds) */
  resource: Resource;
  /** written through the status subresource after the resource exists */
  status?: Record<string, unknown>;
  /** the row it came from, for the report */
  source: string;
}

/** A row (or part of one) that has no resource: the report lists each with its reason. */
export interface Unmapped {
  source: string;
  reason: string;
}

export interface MigrationPlan {
  items: MigrationItem[];
  unmapped: Unmapped[];
}

export function migratedMetadata(source: string, extra: Record<string, string> = {}) {
  return { annotations: { [MIGRATED_FROM]: 'feilong', [FEILONG_SOURCE]: source, ...extra } };
}

/** Kubernetes object names: DNS-1123 subdomain. */
export const isResourceName = (name: string) => name.length <= 253 && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name);
