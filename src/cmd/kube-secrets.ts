/**
 * Host credentials from Kubernetes Secrets: its own file so that kube-hosts.ts (which standalone uses
 * too) does not load the Kubernetes client into a process that never speaks to a cluster.
 */
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { callOptions as kubeCallOptions } from '../runtime/kube-request.js';
import { toStoreError } from '../store/kube/index.js';

/** readSecret over the Kubernetes API: data is base64, stringData never comes back from a read. */
export function kubeSecretReader(kubeconfig: KubeConfig, namespace: string): (name: string) => Promise<Record<string, string>> {
  const api = kubeconfig.makeApiClient(CoreV1Api);
  return async (name) => {
    let secret;
    try {
      secret = await api.readNamespacedSecret({ name, namespace }, kubeCallOptions(AbortSignal.timeout(30_000)));
    } catch (err) {
      throw toStoreError(err, `Secret ${namespace}/${name}`, 'read');
    }
    return Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
  };
}
