import type { Registry } from 'prom-client';
import type { ServerOptions } from 'node:https';
import type { Logger } from '../log.js';
import type { Hypervisor } from '../hypervisor/index.js';
import { DEFAULT_HOST, type ZGuest } from '../api/index.js';
import type { ObjectKey, StateStore } from '../store/port.js';

export interface RestAuthConfig {
  /** feilong `[wsgi] auth`: false is `none` (POST /token answers `server-auth-closed`). */
  enabled: boolean;
  /** Re-read on every request so that rotating the file invalidates issued tokens at once. */
  adminTokenFile?: string;
  adminToken?: string;
  tokenValiditySeconds: number;
}

export interface RestConfig {
  /** Namespace where REST-created ZGuests live. */
  namespace: string;
  /**
   * Namespaces whose ZGuests REST serves (userids are host-global, so a guest is found by userid in any
   * of them); absent: every namespace the sidecar may list.
   */
  guestNamespaces?: string[];
  /** ZHost that REST-created guests (and unmanaged live reads) use. */
  defaultHost: string;
  /**
   * Bound on every wait for the controller's verdict (feilong blocks until the operation ends; its own
   * limits reach 1800 s). Past it the call answers that the operation is still running (202).
   */
  operationTimeoutMs: number;
  /** deploy and capture requests that may run at once; more answer 503 (feilong's max_concurrent_deploy_capture) */
  maxConcurrentDeployCapture: number;
  auth: RestAuthConfig;
  /** e.g. 'ECKD:POOL1'; used when a disk names no disk_pool. */
  diskPool?: string;
  userRootVdev: string;
  version: string;
  /** local directories /files may read and write; uploads land in `<first>/imported/` (README: --image-dir) */
  imageDirs: string[];
  /** PUT /files refuses a body larger than this (bytes) */
  maxUploadBytes: number;
}

export interface HypervisorResolver {
  forHost(name: string): Hypervisor;
}

/**
 * A watch-fed, read-only view of the ZGuests (the operator's informer cache in standalone mode):
 * GET /guests answers from it instead of copying every object out of the store per request.
 */
export interface GuestIndex {
  list(): ZGuest[];
  get(key: ObjectKey): ZGuest | undefined;
  /** informer-style change callbacks; existing objects arrive as adds */
  addHandler(handler: { onAdd?(obj: ZGuest): void; onUpdate?(oldObj: ZGuest, newObj: ZGuest): void; onDelete?(obj: ZGuest): void }): () => void;
  /** false until the first list is in (REST answers from the store meanwhile); absent: always */
  hasSynced?(): boolean;
}

/** Everything the REST sidecar needs; cmd/ builds it (docs/architecture.md §1). */
export interface RestDeps {
  store: StateStore;
  hypervisors: HypervisorResolver;
  log: Logger;
  config?: RestConfigInput;
  guestIndex?: GuestIndex;
  /** where zvm_rest_* metrics go; none when absent */
  registry?: Registry;
  /** serve HTTPS with these options (cmd/listener-tls.ts); absent: plain HTTP */
  https?: ServerOptions;
}

export type RestConfigInput = Partial<Omit<RestConfig, 'auth'>> & { auth?: Partial<RestAuthConfig> };

export const DEFAULT_REST_CONFIG: RestConfig = {
  namespace: 'default',
  defaultHost: DEFAULT_HOST,
  operationTimeoutMs: 1_800_000,
  maxConcurrentDeployCapture: 20,
  auth: { enabled: false, tokenValiditySeconds: 3600 },
  userRootVdev: '0100',
  version: '1.6.7',
  imageDirs: [],
  maxUploadBytes: 16 * 1024 ** 3,
};

/** Fills defaults; a non-positive token validity means 3600 as in the reference. */
export function resolveRestConfig(input: RestConfigInput = {}): RestConfig {
  const auth = { ...DEFAULT_REST_CONFIG.auth, ...input.auth };
  if (!(auth.tokenValiditySeconds > 0)) auth.tokenValiditySeconds = 3600;
  return { ...DEFAULT_REST_CONFIG, ...input, auth };
}
