/**
 * One connection pool to the apiserver (src/store/kube/connection-pool.ts): over a burst of requests
 * from every kind of client a process builds (store, leases, events), against a real kube-apiserver,
 * the process does a handful of TLS handshakes, not one per request.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { loadKubeconfig } from '../../../src/cmd/kube-common.js';
import { ZvmError } from '../../../src/errors.js';
import { createKubeEventSink } from '../../../src/runtime/kube-event-recorder.js';
import { createKubeLeaseApi } from '../../../src/runtime/kube-lease.js';
import { kubeTlsHandshakes, MAX_REQUEST_SOCKETS } from '../../../src/store/kube/connection-pool.js';
import { createKubeStore } from '../../../src/store/kube/index.js';
import { startKubeTestEnv, type KubeTestEnv } from '../../kube/harness.js';

let env: KubeTestEnv | undefined;

beforeAll(async () => {
  env = await startKubeTestEnv();
}, 240_000);

afterAll(async () => {
  await env?.stop();
}, 60_000);

const BURST = 50;
const ROUNDS = 3;

test('a burst of store, lease and event requests shares a few TLS connections', async () => {
  if (!env) throw new ZvmError('UNAVAILABLE', 'kube test env did not start (see the beforeAll failure)');
  // two loads of the same file, as controller and migrate each load theirs: still one pool
  const leases = createKubeLeaseApi({ kubeconfig: loadKubeconfig(env.adminKubeconfig), namespace: 'default', name: 'no-such-lease' });
  const events = createKubeEventSink(loadKubeconfig(env.adminKubeconfig));
  const store = createKubeStore({ kubeconfig: loadKubeconfig(env.adminKubeconfig) });
  const before = kubeTlsHandshakes();
  let answered = 0;
  for (let round = 0; round < ROUNDS; round++) {
    await Promise.all(
      Array.from({ length: BURST }, async (_, i) => {
        const signal = AbortSignal.timeout(60_000);
        const which = i % 3;
        if (which === 0) expect(await leases.get(signal)).toBeUndefined();
        else if (which === 1) {
          const name = `burst-${round}-${i}`;
          await events.create('default', { metadata: { name, namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Burst', message: 'x', type: 'Normal' }, signal);
        } else await expect(store.list('ZGuest', { namespace: 'default' })).rejects.toBeInstanceOf(ZvmError); // no CRDs here: the apiserver answers 404
        answered += 1;
      }),
    );
  }
  await store.close();
  const handshakes = kubeTlsHandshakes() - before;
  expect(answered).toBe(BURST * ROUNDS);
  expect(handshakes).toBeGreaterThanOrEqual(1);
  expect(handshakes).toBeLessThanOrEqual(MAX_REQUEST_SOCKETS);
}, 120_000);

test('the Event sink writes an Event, bumps its count with a merge patch, and reports a gone one as NOT_FOUND', async () => {
  if (!env) throw new ZvmError('UNAVAILABLE', 'kube test env did not start (see the beforeAll failure)');
  const kubeconfig = loadKubeconfig(env.adminKubeconfig);
  const events = createKubeEventSink(kubeconfig);
  const signal = AbortSignal.timeout(30_000);
  const at = '2026-01-01T00:00:00Z';
  await events.create('default', {
    metadata: { name: 'counted', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
    reason: 'Counted', message: 'x', type: 'Normal', count: 1, firstTimestamp: at as unknown as Date, lastTimestamp: at as unknown as Date,
  }, signal);
  await events.patch('default', 'counted', { count: 3, lastTimestamp: '2026-01-01T00:01:00Z' }, signal);
  const read = await kubeconfig.makeApiClient(CoreV1Api).readNamespacedEvent({ namespace: 'default', name: 'counted' });
  expect(read.count).toBe(3);
  expect(read.reason).toBe('Counted');
  await expect(events.patch('default', 'no-such-event', { count: 2, lastTimestamp: at }, signal)).rejects.toMatchObject({ code: 'NOT_FOUND' });
}, 60_000);
