import type { CallOptions } from './port.js';

/** What a live relocation may force (VMRELOCATE FORCE operands). */
export type RelocationForce = 'ARCHITECTURE' | 'DOMAIN' | 'STORAGE';

/** One live relocation of a logged-on guest to another member of the host's SSI cluster. */
export interface RelocationRequest {
  /** system name of the destination member */
  destination: string;
  /** true: only check that the move would succeed (VMRELOCATE TEST) */
  test?: boolean;
  /** seconds the whole relocation may take; undefined: no limit */
  maxTotal?: number;
  /** seconds the guest may be quiesced; undefined: no limit */
  maxQuiesce?: number;
  immediate?: boolean;
  force?: RelocationForce[];
}

/** Optional Hypervisor capability: live guest relocation (docs/rest-interface.md §3.13). */
export interface RelocationOps {
  /** Resolves once the guest runs on the destination (or the test passed); typed HypervisorError otherwise. */
  relocate(userid: string, req: RelocationRequest, opts?: CallOptions): Promise<void>;
}
