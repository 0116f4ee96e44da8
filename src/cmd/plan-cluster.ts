/**
 * `plan` against a cluster: the manifests compared with the live resources (read through the apiserver)
 * and with the hosts, read with SMAPI queries over a connection made from each ZHost and its Secret as
 * the controller makes it (kubectl-zvm/live.ts). The planner is the controller's own (plan-manifest.ts),
 * on a dry-run store and the adapter's dry run: nothing is written to the cluster or to a host. So the
 * plan runs where the hosts' SMAPI servers and the operator namespace's Secrets can be reached; a
 * simulated ZHost lives inside the controller process and cannot be planned from outside it.
 */
import { Value } from '@sinclair/typebox/value';
import { resolveKind, type Resource } from '../api/index.js';
import { NotFoundError } from '../errors.js';
import type { Hypervisor } from '../hypervisor/index.js';
import { silentLogger } from '../log.js';
import { createDryRunStore } from '../store/dry-run-store.js';
import { createKubeStore } from '../store/kube/index.js';
import { loadKubeconfig } from './kubectl-zvm/kube-backend.js';
import { connectKubeHosts, type KubeHostConnector } from './kubectl-zvm/kube-live.js';
import { planManifest, plannedHostOf, type ResourcePlan } from './plan-manifest.js';

export interface ClusterPlanOptions {
  kubeconfig?: string;
  context?: string;
  /** namespace of manifests that name none: -n, else the kubeconfig context's, else default */
  namespace?: string;
  /** where the ZHosts' credential Secrets are */
  operatorNamespace: string;
}

/** Bound on connecting to a host. */
const HOST_CONNECT_MS = 30_000;

/**
 * The manifest as the apiserver would store it: in the namespace it would land in, with the schema's
 * defaults filled in (the CRDs carry the same defaults), so a manifest that leaves out a defaulted
 * field does not read as a change.
 */
function asStored(doc: Resource, namespace: string): Resource {
  const def = resolveKind(doc.kind);
  if (!def) return doc;
  const spec = Value.Default(def.spec, structuredClone(doc.spec ?? {})) as Resource['spec'];
  const ns = def.scope === 'Namespaced' && !doc.metadata.namespace ? { namespace } : {};
  return { ...doc, spec, metadata: { ...doc.metadata, ...ns } };
}

/** The hosts the manifests' plans need, connected; a ZHost the cluster lacks is left out (the plan says so). */
async function connectHosts(docs: Resource[], connector: KubeHostConnector): Promise<Map<string, Hypervisor>> {
  const hosts = new Map<string, Hypervisor>();
  for (const name of new Set(docs.flatMap((d) => plannedHostOf(d) ?? []))) {
    try {
      hosts.set(name, await connector.hypervisor(name));
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
  }
  return hosts;
}

export async function planOnCluster(opts: ClusterPlanOptions, docs: Resource[]): Promise<ResourcePlan[]> {
  const kubeconfig = loadKubeconfig(opts);
  const namespace = opts.namespace ?? kubeconfig.getContextObject(kubeconfig.getCurrentContext())?.namespace ?? 'default';
  const live = createKubeStore({ kubeconfig });
  const connector = connectKubeHosts({ kubeconfig, store: live, operatorNamespace: opts.operatorNamespace, timeoutMs: HOST_CONNECT_MS });
  try {
    const manifests = docs.map((d) => asStored(d, namespace));
    const hosts = await connectHosts(manifests, connector);
    const deps = { store: createDryRunStore(live), hypervisors: { forHost: (name: string) => hosts.get(name) }, log: silentLogger() };
    const plans: ResourcePlan[] = [];
    for (const doc of manifests) plans.push(await planManifest(deps, doc));
    return plans;
  } finally {
    await connector.close();
    await live.close();
  }
}
