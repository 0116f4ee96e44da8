/**
 * The kube StateStore adapter against a real etcd + kube-apiserver (test/kube/harness.ts) with the
 * project's CRDs applied: the whole StateStore contract, then what only a real apiserver shows
 * (server-side validation errors, expired resourceVersions, an apiserver restart under an informer).
 * Without the toolchain (test/kube/toolchain.sh) every test fails saying how to build it.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import type { ZGuest } from '../../../src/api/index.js';
import { ZvmError } from '../../../src/errors.js';
import { createInformer } from '../../../src/runtime/informer.js';
import type { StateStore } from '../../../src/store/index.js';
import { createKubeStore } from '../../../src/store/kube/index.js';
import { describeStoreContract } from '../../contract/store-contract.js';
import { aGuest, rejection, take, uniqueName } from '../../contract/store-fixtures.js';
import { startKubeTestEnv, type KubeTestEnv } from '../../kube/harness.js';
import { kubectlOk } from '../../kube/kubectl.js';

const CRD_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../crds');
/** Bound on waiting for an informer to see something (includes an apiserver restart). */
const SEE_BOUND_MS = 60_000;

let env: KubeTestEnv | undefined;

function theEnv(): KubeTestEnv {
  if (!env) throw new ZvmError('UNAVAILABLE', 'kube test env did not start (see the beforeAll failure)');
  return env;
}

function adminKubeconfig(): KubeConfig {
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromFile(theEnv().adminKubeconfig);
  return kubeconfig;
}

async function createNamespace(name = uniqueName('ns')): Promise<string> {
  await adminKubeconfig().makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
  return name;
}

/** Polls `probe` until it holds or the bound passes; the caller's assertion then reports the miss. */
async function eventually(probe: () => boolean, boundMs = SEE_BOUND_MS): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (!probe()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

/**
 * Applies crds/ as JSON. `kubectl apply -f crds/` itself fails: kubectl reads YAML 1.1, where the
 * unquoted enum values and default `On`/`Off` of spec.powerState are booleans, and the apiserver
 * rejects the CRD. Parsed here as YAML 1.2 (strings), the CRDs are exactly what src/api defines.
 */
async function applyCrds(kubeconfig: string): Promise<void> {
  for (const file of (await readdir(CRD_DIR)).filter((f) => f.endsWith('.yaml'))) {
    const crd: unknown = parseYaml(await readFile(join(CRD_DIR, file), 'utf8'));
    await kubectlOk(['apply', '-f', '-'], { kubeconfig, input: JSON.stringify(crd) });
  }
}

beforeAll(async () => {
  env = await startKubeTestEnv();
  const kubeconfig = env.adminKubeconfig;
  await applyCrds(kubeconfig);
  await kubectlOk(['wait', '--for=condition=Established', 'crd/zguests.zvm.dev', 'crd/zhosts.zvm.dev', '--timeout=60s'], { kubeconfig });
}, 240_000);

afterAll(async () => {
  await env?.stop();
}, 60_000);

describeStoreContract('kube', async () => ({ store: createKubeStore({ kubeconfig: adminKubeconfig() }), cleanup: async () => {} }), {
  makeNamespace: (_store, name) => createNamespace(name),
});

describe('kube store on a real apiserver', () => {
  let store: StateStore | undefined;

  function theStore(): StateStore {
    store ??= createKubeStore({ kubeconfig: adminKubeconfig() });
    return store;
  }

  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('reports what only the apiserver checks (the name) as INVALID_SPEC with the field as a schema path', async () => {
    const err = await rejection(theStore().create(aGuest(await createNamespace(), 'Not_A_Dns_Name')));
    expect(err.code).toBe('INVALID_SPEC');
    expect(err.issues?.map((i) => i.path)).toContain('/metadata/name');
  });

  it('updates without a resourceVersion (unconditionally), though the apiserver demands one for custom resources', async () => {
    const created = await theStore().create(aGuest(await createNamespace()));
    const { resourceVersion: _dropped, ...metadata } = created.metadata;
    const updated = await theStore().update<ZGuest>({ ...created, metadata, spec: { ...created.spec, vcpus: 3 } });
    expect(updated.spec.vcpus).toBe(3);
    const status = await theStore().updateStatus<ZGuest>({ ...updated, metadata, status: { phase: 'Running' } });
    expect(status.status?.phase).toBe('Running');
  });

  it('leaves a status write\'s check to the apiserver: a wrong type comes back as INVALID_SPEC naming the field', async () => {
    const created = await theStore().create(aGuest(await createNamespace()));
    const err = await rejection(theStore().updateStatus<ZGuest>({ ...created, status: { vcpus: 'two' } } as unknown as ZGuest));
    expect(err.code).toBe('INVALID_SPEC');
    expect(err.issues?.map((i) => i.path)).toContain('/status/vcpus');
  });

  it('ends a watch from an expired resourceVersion with GONE', async () => {
    const ns = await createNamespace();
    const controller = new AbortController();
    const err = await rejection(take(theStore().watch('ZGuest', { namespace: ns, resourceVersion: '1', signal: controller.signal }), 1, controller));
    expect(err.code).toBe('GONE');
  });

  it('keeps an informer current across an apiserver restart', async () => {
    const ns = await createNamespace();
    const informer = createInformer<ZGuest>({ store: theStore(), kind: 'ZGuest', namespace: ns, backoff: { initialMs: 100, maxMs: 1_000 } });
    const stopper = new AbortController();
    const running = informer.start(stopper.signal);
    try {
      expect(await informer.waitForSync(stopper.signal)).toBe(true);
      const before = await theStore().create(aGuest(ns));
      expect(await eventually(() => informer.get(before.metadata) !== undefined)).toBe(true);

      await theEnv().restartApiserver();
      const after = await theStore().create(aGuest(ns));
      await theStore().patch('ZGuest', before.metadata, { spec: { vcpus: 2 } });

      expect(await eventually(() => informer.get(after.metadata) !== undefined)).toBe(true);
      expect(await eventually(() => informer.get(before.metadata)?.spec.vcpus === 2)).toBe(true);
    } finally {
      stopper.abort();
      await running;
    }
  }, 180_000);
});
