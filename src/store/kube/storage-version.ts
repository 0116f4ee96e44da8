/**
 * The storage-version migration of our CRDs, as kube-storage-version-migrator does it: for each zvm.dev
 * CRD whose status.storedVersions names another version than the storage one, every object is written
 * back unchanged (the apiserver then stores it at the storage version; no spec changes, so no controller
 * acts and no SMAPI call is made), then storedVersions is set to the storage version alone.
 *
 * Every controller replica runs it once at start-up rather than a chart hook Job: it then also runs for
 * the plain manifests and GitOps tools that skip hooks, needs no second image pull or ServiceAccount,
 * and a CRD already migrated costs one GET. Replicas running it together only repeat no-op writes.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { apiVersionOf, groupOf, KINDS, STORAGE_VERSION, type KindDefinition, type Resource } from '../../api/index.js';
import type { Logger } from '../../log.js';
import { kubeRequest, MERGE_PATCH, type KubeRequest } from './http.js';
import { collectionPath, type RawList } from './resource-client.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const REQUEST_TIMEOUT_MS = 30_000;
const PAGE = 500;

interface Crd { spec: { versions: { name: string; storage: boolean }[] }; status?: { storedVersions?: string[] } }

export interface MigratedCrd { crd: string; from: string[]; objects: number }

/** `stop` ends it between two requests (the controller is stopping). */
export async function migrateStoredVersions(kubeconfig: KubeConfig, log: Logger, stop?: AbortSignal): Promise<MigratedCrd[]> {
  const send = (r: Omit<KubeRequest, 'signal'>) => {
    stop?.throwIfAborted();
    return kubeRequest(kubeconfig, { ...r, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  };
  const done: MigratedCrd[] = [];
  for (const def of Object.values(KINDS).filter((d) => !d.version)) {
    const name = `${def.plural}.${groupOf(def)}`;
    const crd = (await send({ method: 'GET', path: `${CRDS}/${name}` })) as Crd;
    const from = crd.status?.storedVersions ?? [];
    if (crd.spec.versions.find((v) => v.storage)?.name !== STORAGE_VERSION) {
      log.warn({ crd: name, storage: crd.spec.versions.find((v) => v.storage)?.name }, `the CRD does not store ${STORAGE_VERSION} yet: apply this release's CRDs (docs/user-guide/upgrade.md)`);
      continue;
    }
    if (from.length === 1 && from[0] === STORAGE_VERSION) continue;
    try {
      const objects = await rewriteAll(send, def);
      await send({ method: 'PATCH', path: `${CRDS}/${name}/status`, body: { status: { storedVersions: [STORAGE_VERSION] } }, contentType: MERGE_PATCH });
      log.info({ crd: name, from, objects }, 'stored objects moved to the storage version');
      done.push({ crd: name, from, objects });
    } catch (err) {
      // an object the apiserver refuses to write back keeps its CRD's storedVersions as they are; the other CRDs go on
      if (stop?.aborted) throw err;
      log.error({ err, crd: name }, `moving the stored objects to ${STORAGE_VERSION} failed; it runs again at the next start`);
    }
  }
  return done;
}

type Send = (r: Omit<KubeRequest, 'signal'>) => Promise<unknown>;

/** Every object of the kind, a page at a time, each written back; returns how many writes were needed. */
async function rewriteAll(send: Send, def: KindDefinition): Promise<number> {
  let written = 0;
  let continueToken: string | undefined;
  do {
    const page = (await send({ method: 'GET', path: collectionPath(def, undefined), query: { limit: PAGE, continue: continueToken } })) as RawList;
    for (const item of (page.items ?? []) as Resource[]) if (await rewriteOne(send, def, item)) written += 1;
    continueToken = page.metadata?.continue || undefined;
  } while (continueToken);
  return written;
}

/**
 * A PUT of the object as listed (with its resourceVersion). A conflict or a not-found means another
 * write since the list stored it anew, or it is gone: either way nothing is left to move.
 */
async function rewriteOne(send: Send, def: KindDefinition, item: Resource): Promise<boolean> {
  const { namespace, name } = item.metadata;
  try {
    await send({ method: 'PUT', path: `${collectionPath(def, namespace)}/${encodeURIComponent(name)}`, body: { ...item, apiVersion: apiVersionOf(def), kind: def.kind } });
    return true;
  } catch (err) {
    if ([404, 409].includes((err as { code?: number }).code ?? 0)) return false;
    throw err;
  }
}
