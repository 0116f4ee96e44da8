import { AlreadyExistsError, ConflictError, NotFoundError, ZvmError } from '../../../../src/errors.js';
import type { LeaseRecord } from '../../../../src/runtime/leader-election.js';
import type { LeaseRole, ShardLease, ShardLeaseStore } from '../../../../src/runtime/sharding/lease-store.js';

/**
 * Leases in memory with the apiserver's optimistic concurrency (a write at a stale resourceVersion is a
 * ConflictError), shared by several coordinators; a replica can be cut off ("partitioned").
 */
export interface MemoryLeases {
  storeFor(identity: string): ShardLeaseStore;
  partitioned: Set<string>;
  all(): ShardLease[];
  hostHolders(): Map<string, string>;
}

export function createMemoryLeases(): MemoryLeases {
  const leases = new Map<string, ShardLease>();
  const partitioned = new Set<string>();
  let rv = 0;
  const put = (role: LeaseRole, subject: string, record: LeaseRecord): ShardLease => {
    rv += 1;
    const lease: ShardLease = { name: `${role}-${subject}`, role, subject, record: { ...record }, resourceVersion: String(rv) };
    leases.set(lease.name, lease);
    return { ...lease, record: { ...lease.record } };
  };
  return {
    partitioned,
    all: () => [...leases.values()],
    hostHolders: () => new Map([...leases.values()].filter((l) => l.role === 'host' && l.record.holderIdentity).map((l) => [l.subject, l.record.holderIdentity ?? ''])),
    storeFor(identity) {
      const reachable = async (): Promise<void> => {
        await Promise.resolve();
        if (partitioned.has(identity)) throw new ZvmError('UNAVAILABLE', 'apiserver unreachable');
      };
      return {
        async list() {
          await reachable();
          return [...leases.values()].map((l) => ({ ...l, record: { ...l.record } }));
        },
        async create(role, subject, record) {
          await reachable();
          if (leases.has(`${role}-${subject}`)) throw new AlreadyExistsError('exists');
          return put(role, subject, record);
        },
        async update(lease, record) {
          await reachable();
          const current = leases.get(lease.name);
          if (!current) throw new NotFoundError('gone');
          if (current.resourceVersion !== lease.resourceVersion) throw new ConflictError('stale');
          return put(lease.role, lease.subject, record);
        },
        async delete(lease) {
          await reachable();
          const current = leases.get(lease.name);
          if (current && current.resourceVersion !== lease.resourceVersion) throw new ConflictError('stale');
          leases.delete(lease.name);
        },
      };
    },
  };
}
