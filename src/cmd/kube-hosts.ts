import { join } from 'node:path';
import type { Registry } from 'prom-client';
import type { ZHost } from '../api/index.js';
import { InvalidSpecError } from '../errors.js';
import {
  checkInsideDirs, createInProcessCaller, createMgmtOps, createSmapiClient, createSmapiHypervisor, type HostRegistry,
  type HttpSourcePolicy, type Hypervisor, type MgmtOps, type SmapiCaller,
} from '../hypervisor/index.js';
import type { Logger } from '../log.js';
import { createInformer, type Informer } from '../runtime/index.js';
import type { StateStore } from '../store/port.js';
import { managementHostKeyPolicy, readKnownHostsFile, smapiTlsOptions } from './host-keys.js';

/**
 * The HostRegistry of cluster mode, built from ZHost resources: a watch on ZHosts creates, replaces
 * and closes one Hypervisor per host. `simulated: true` runs the simulator in this process (state file
 * under simStateDir); `smapi` connects to a SMAPI server with the userid/password of a Secret in the
 * operator's namespace; `management` adds the management guest over SSH (key Secret with privateKey or
 * password) whose host key must be pinned (host-keys.ts) or trusted on first use. A host that cannot be built (missing Secret) is retried until it can.
 */
export interface KubeHostsDeps {
  store: StateStore;
  log: Logger;
  /** reads a Secret of the operator's namespace as decoded strings; NotFoundError when missing. */
  readSecret: (name: string) => Promise<Record<string, string>>;
  /** state files of simulated hosts; absent: the simulator keeps its state in memory. */
  simStateDir?: string;
  /** REST: a simulated host is a view of the controller's state file in simStateDir (sim-state-view.ts), not a simulator of its own */
  simStateView?: boolean;
  /** SMAPI client metrics (zvm_smapi_calls_total, ...) go here. */
  registry?: Registry;
  /** called once a host's hypervisor is (re)registered: guests waiting for it can go on. */
  onHostReady?: (name: string) => void;
  /** the process's --image-dir directories: a ZHost may name some of them (or directories inside them), never others */
  imageDirs?: string[];
  /** size cap, redirect limit and host allow-list of http(s) image imports */
  imageHttp?: HttpSourcePolicy;
  /** delay before retrying a host that could not be built; default 10 s. */
  retryMs?: number;
  /** OpenSSH known_hosts file trusted for every host's management guest and user@host transfers */
  knownHostsFile?: string;
  /** sharding: connect only to the hosts this replica holds (call resync when that changes); default all */
  wanted?: (name: string) => boolean;
  /** sharding: throws when this replica may no longer write to the host; checked before every request */
  gate?: (name: string) => void;
  /** SMAPI connections start from this local address (--smapi-local-address) */
  localAddress?: string;
}

export interface KubeHosts extends HostRegistry {
  /** the ZHost watch; run it as a runnable (every replica). */
  informer: Informer<ZHost>;
  /** builds or closes the host's connection after wanted(name) changed */
  resync(name: string): void;
}

interface Entry {
  fingerprint: string;
  hypervisor?: Hypervisor;
  /** bumps on every change so that a slow build of an older spec is discarded */
  generation: number;
  retry?: NodeJS.Timeout;
}

/** The reference's file repository (feilong `[file] file_repository`); cluster mode's default --image-dir. */
export const DEFAULT_IMAGE_DIR = '/var/lib/zvmsdk/files';

/** A ZHost narrows the operator's image directories, it cannot widen them (whoever writes a ZHost is not root in the pod). */
export function hostImageDirs(host: string, wanted: string[] | undefined, allowed: string[]): string[] {
  if (!wanted) return allowed;
  for (const dir of wanted) {
    try {
      checkInsideDirs(dir, allowed);
    } catch (err) {
      throw new InvalidSpecError(`ZHost ${host}: spec.management.imageDirs entry ${dir} is not inside the operator's --image-dir directories (${allowed.join(', ') || 'none'})`, [], { cause: err });
    }
  }
  return wanted;
}

export function createKubeHosts(deps: KubeHostsDeps): KubeHosts {
  const log = deps.log.child({ component: 'hosts' });
  const informer = createInformer<ZHost>({ store: deps.store, kind: 'ZHost', log: deps.log });
  const entries = new Map<string, Entry>();
  const retryMs = deps.retryMs ?? 10_000;
  let closed = false;

  async function buildSmapi(name: string, smapi: NonNullable<ZHost['spec']['smapi']>): Promise<SmapiCaller> {
    if (!smapi.credentialsSecret) throw new InvalidSpecError(`ZHost ${name}: spec.smapi.credentialsSecret is required`, []);
    const secret = await deps.readSecret(smapi.credentialsSecret);
    if (!secret.userid || !secret.password) throw new InvalidSpecError(`Secret ${smapi.credentialsSecret} needs the keys userid and password`, []);
    return createSmapiClient({
      host: smapi.host,
      port: smapi.port ?? 44444,
      ...(await smapiTlsOptions(smapi, deps.readSecret)),
      auth: { userid: secret.userid, password: secret.password },
      poolSize: smapi.concurrency ?? 4,
      timeoutMs: smapi.timeoutSeconds ? smapi.timeoutSeconds * 1000 : undefined,
      metrics: deps.registry,
      name,
      log: deps.log,
      localAddress: deps.localAddress,
      beforeSend: deps.gate ? () => deps.gate?.(name) : undefined,
    });
  }

  /** The management guest over SSH: key (or password) and optional host-key pin from a Secret. */
  async function buildMgmt(host: ZHost, management: NonNullable<ZHost['spec']['management']>): Promise<MgmtOps> {
    const name = host.metadata.name;
    if (!management.keySecret) throw new InvalidSpecError(`ZHost ${name}: spec.management.keySecret is required`, []);
    const secret = await deps.readSecret(management.keySecret);
    if (!secret.privateKey && !secret.password) throw new InvalidSpecError(`Secret ${management.keySecret} needs the key privateKey or password`, []);
    const knownHosts = await readKnownHostsFile(deps.knownHostsFile);
    return createMgmtOps({
      endpoint: {
        host: management.host,
        port: management.port ?? 22,
        username: management.user ?? 'root',
        privateKey: secret.privateKey || undefined,
        password: secret.password || undefined,
        hostKey: managementHostKeyPolicy(host, secret, knownHosts),
      },
      remoteHostAuth: { hostKeys: knownHosts },
      repository: management.repository,
      allowedDirs: hostImageDirs(name, management.imageDirs, deps.imageDirs ?? []),
      http: deps.imageHttp,
      log: deps.log,
      metrics: deps.registry && { registry: deps.registry, host: name },
    });
  }

  async function build(host: ZHost): Promise<Hypervisor> {
    const name = host.metadata.name;
    const mgmt = host.spec.management ? await buildMgmt(host, host.spec.management) : undefined;
    if (host.spec.smapi) {
      const caller = await buildSmapi(name, host.spec.smapi);
      return createSmapiHypervisor({ hostName: name, caller, log: deps.log, mgmt });
    }
    if (host.spec.simulated) {
      const statePath = deps.simStateDir ? join(deps.simStateDir, `zvm-sim-${name}.json`) : undefined;
      // the simulator (and its SSH server's ssh2) loads with the first simulated host: about 7 MB a
      // controller of real hosts never uses (issue 38)
      const sim = statePath && deps.simStateView
        ? (await import('./sim-state-view.js')).createSimStateView(statePath)
        : (await import('../hypervisor/sim/index.js')).createSimHost({ statePath });
      const gate = deps.gate;
      const handler = gate ? { handle: (req: Parameters<typeof sim.handle>[0]) => Promise.resolve().then(() => gate(name)).then(() => sim.handle(req)) } : sim;
      const hv = createSmapiHypervisor({ hostName: name, caller: createInProcessCaller({ handler, metrics: deps.registry && { registry: deps.registry, host: name } }), log: deps.log, mgmt });
      return { ...hv, close: async () => { await hv.close(); await sim.close(); } };
    }
    await mgmt?.close();
    throw new InvalidSpecError(`ZHost ${name} names neither smapi nor simulated`, []);
  }

  async function retire(hv: Hypervisor | undefined, name: string): Promise<void> {
    try {
      await hv?.close();
    } catch (err) {
      log.warn({ err, host: name }, 'closing a replaced host connection failed');
    }
  }

  function sync(host: ZHost): void {
    const name = host.metadata.name;
    if (deps.wanted && !deps.wanted(name)) return remove(host);
    const fingerprint = JSON.stringify(host.spec);
    const entry = entries.get(name);
    if (entry?.fingerprint === fingerprint && (entry.hypervisor || entry.retry)) return;
    const next: Entry = { fingerprint, generation: (entry?.generation ?? 0) + 1, hypervisor: entry?.hypervisor };
    if (entry?.retry) clearTimeout(entry.retry);
    entries.set(name, next);
    build(host).then(
      (hv) => {
        if (closed || entries.get(name) !== next) return void retire(hv, name);
        const old = next.hypervisor;
        next.hypervisor = hv;
        log.info({ host: name, mode: host.spec.smapi ? 'smapi' : 'simulated' }, 'host ready');
        void retire(old, name);
        deps.onHostReady?.(name);
      },
      (err: unknown) => {
        if (closed || entries.get(name) !== next) return;
        log.error({ err, host: name, retryMs }, 'host cannot be used yet; retrying');
        next.retry = setTimeout(() => {
          next.retry = undefined;
          const current = informer.get({ name });
          if (current && entries.get(name) === next) {
            next.fingerprint = '';
            sync(current);
          }
        }, retryMs);
      },
    );
  }

  function remove(host: ZHost): void {
    const name = host.metadata.name;
    const entry = entries.get(name);
    if (!entry) return;
    entries.delete(name);
    if (entry.retry) clearTimeout(entry.retry);
    log.info({ host: name }, 'host removed');
    void retire(entry.hypervisor, name);
  }

  informer.addHandler({ onAdd: sync, onUpdate: (_old, host) => sync(host), onDelete: remove });

  return {
    informer,
    resync(name) {
      const host = informer.get({ name });
      if (host) sync(host);
    },
    forHost: (name) => entries.get(name)?.hypervisor,
    register(name, hypervisor) {
      entries.set(name, { fingerprint: '(registered)', generation: 0, hypervisor });
    },
    hosts: () => [...entries.entries()].filter(([, e]) => e.hypervisor).map(([name]) => name),
    async close() {
      closed = true;
      const all = [...entries.entries()];
      entries.clear();
      for (const [, e] of all) if (e.retry) clearTimeout(e.retry);
      await Promise.all(all.map(([name, e]) => retire(e.hypervisor, name)));
    },
  };
}
