import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { pooled } from '../store/kube/connection-pool.js';
// standalone parses durations too, without pulling in the Kubernetes client
export { parseDuration } from './duration.js';

/** What `controller` and `rest` share in cluster mode: kubeconfig, namespace, durations, signals. */

/** A kubeconfig file, else the way kubectl finds one (KUBECONFIG, ~/.kube/config, in-cluster); its clients share one connection pool. */
export function loadKubeconfig(path?: string): KubeConfig {
  const kubeconfig = new KubeConfig();
  if (path) kubeconfig.loadFromFile(path);
  else kubeconfig.loadFromDefault();
  return pooled(kubeconfig);
}

const SA_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** The namespace the process runs in: flag, POD_NAMESPACE, the service account's namespace, default. */
export function operatorNamespace(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return flag;
  if (env.POD_NAMESPACE) return env.POD_NAMESPACE;
  try {
    return readFileSync(SA_NAMESPACE_FILE, 'utf8').trim() || 'default';
  } catch {
    return 'default'; // not in a pod
  }
}


