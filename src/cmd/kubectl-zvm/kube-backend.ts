/**
 * `kubectl zvm` against a cluster: the kubeconfig as kubectl finds it, a kube store under the plugin's
 * field manager, and live reads through the hosts' Secrets. Its own module so that `--help`,
 * completion and `--server` never load the Kubernetes client.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { InvalidInputError } from '../../errors.js';
import { silentLogger } from '../../log.js';
import { OPERATOR_FIELD_MANAGERS, PLUGIN_FIELD_MANAGER, REST_FIELD_MANAGER } from '../../rest/ownership.js';
import { createStoreFeed } from '../../rest/store-feed.js';
import { createKubeStore } from '../../store/kube/index.js';
import type { Backend, GlobalOptions } from './connect.js';
import { kubeLiveReads } from './kube-live.js';

/** Bound on connecting to a host for a live read. */
const HOST_CONNECT_MS = 30_000;

/** The kubeconfig as kubectl finds it, with --context applied. */
export function loadKubeconfig(opts: Pick<GlobalOptions, 'kubeconfig' | 'context'>): KubeConfig {
  const kc = new KubeConfig();
  if (opts.kubeconfig) {
    if (!existsSync(opts.kubeconfig)) throw new InvalidInputError(`--kubeconfig ${opts.kubeconfig} does not exist`);
    kc.loadFromFile(opts.kubeconfig);
  } else {
    // client-node falls back to http://localhost:8080 and then fails on its TLS rule: say what is missing instead
    if (!process.env.KUBECONFIG && !existsSync(join(homedir(), '.kube', 'config')) && !process.env.KUBERNETES_SERVICE_HOST) {
      throw new InvalidInputError('no cluster configured: give --kubeconfig FILE or set KUBECONFIG (kubectl\'s own), or --server URL for a standalone instance (its admin API, e.g. http://127.0.0.1:8081)');
    }
    kc.loadFromDefault();
  }
  if (opts.context) {
    if (!kc.getContextObject(opts.context)) throw new InvalidInputError(`context "${opts.context}" does not exist in the kubeconfig`);
    kc.setCurrentContext(opts.context);
  }
  return kc;
}

export function connectCluster(opts: GlobalOptions): Backend {
  const kubeconfig = loadKubeconfig(opts);
  // spec writes under our own field manager; fields kubectl or Argo CD own are refused unless --take-over
  const guardFieldOwners = opts.takeOver ? undefined : { allowedManagers: [...OPERATOR_FIELD_MANAGERS, REST_FIELD_MANAGER] };
  const store = createKubeStore({ kubeconfig, fieldManager: PLUGIN_FIELD_MANAGER, guardFieldOwners });
  const live = kubeLiveReads({ kubeconfig, store, operatorNamespace: opts.operatorNamespace, timeoutMs: HOST_CONNECT_MS });
  const namespace = opts.namespace ?? kubeconfig.getContextObject(kubeconfig.getCurrentContext())?.namespace ?? 'default';
  const feed = createStoreFeed(store, silentLogger());
  return {
    store, feed, live, namespace,
    async close() {
      feed.close();
      await live.close();
      await store.close();
    },
  };
}
