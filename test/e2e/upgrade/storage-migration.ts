/**
 * What the storage-version migration left (store/kube/storage-version.ts, run by the controller at
 * start-up): each zvm.dev CRD's status.storedVersions, and the apiVersion every object is stored at in
 * etcd (read under the apiserver's key prefix through etcd's JSON gateway: custom resources are stored
 * as JSON).
 */
import { kubectlOk } from '../../kube/kubectl.js';

interface Crd { metadata: { name: string }; spec: { versions: { name: string; storage: boolean }[] }; status: { storedVersions: string[] } }

export async function zvmCrds(kubeconfig: string): Promise<Crd[]> {
  const all = JSON.parse(await kubectlOk(['get', 'crd', '-o', 'json'], { kubeconfig })) as { items: Crd[] };
  return all.items.filter((c) => c.metadata.name.endsWith('.zvm.dev'));
}

/** The storedVersions of every zvm.dev CRD, as one set of JSON texts. */
export async function storedVersions(kubeconfig: string): Promise<Set<string>> {
  return new Set((await zvmCrds(kubeconfig)).map((c) => JSON.stringify(c.status.storedVersions)));
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** How many objects of the zvm.dev group etcd holds at each apiVersion. */
export async function etcdApiVersions(etcdUrl: string): Promise<Record<string, number>> {
  // every key under /registry/zvm.dev/ ('0' is the byte after '/')
  const res = await fetch(`${etcdUrl}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: b64('/registry/zvm.dev/'), range_end: b64('/registry/zvm.dev0') }) });
  if (!res.ok) throw new Error(`etcd range: HTTP ${res.status}`);
  const { kvs = [] } = (await res.json()) as { kvs?: { value: string }[] };
  const counts: Record<string, number> = {};
  for (const kv of kvs) {
    const { apiVersion } = JSON.parse(Buffer.from(kv.value, 'base64').toString('utf8')) as { apiVersion: string };
    counts[apiVersion] = (counts[apiVersion] ?? 0) + 1;
  }
  return counts;
}
