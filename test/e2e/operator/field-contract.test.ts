/**
 * The field contract on a real apiserver, through the chart's controller pod (one replica) and a shared
 * `zvm-operator sim` host: the same generated cases as standalone (test/contract/field-contract.ts), the
 * edits made with kubectl (the CRD's transition rules refuse the fixed ones), the directory read from
 * the host over SMAPI; and a guest without maxCpus/maxMemory takes them from the ZHost's spec.defaults.
 */
import { kubectl, kubectlOk } from '../../kube/kubectl.js';
import type { ZGuest } from '../../../src/api/index.js';
import {
  BASE_SPEC, CONTRACT_CLASS, CONTRACT_USERID, contractFields, EDITS, isReady, runContract, type ContractWorld,
} from '../../contract/field-contract.js';
import { chartPodsForSuite } from './chart-suite.js';
import { applyObjects, eventually, type LoggedProcess } from './helpers.js';

const suite = chartPodsForSuite({ set: ['replicas=1,rest.enabled=false', 'controller.extraArgs={--poll-ms=200}'] });
const { env } = suite;
let controller: LoggedProcess | undefined;

beforeAll(() => {
  controller = suite.install().pod().containers.controller?.proc;
});

function world(name: string, userid: string): ContractWorld {
  const { kubeconfig, namespace } = env();
  return {
    async patch(spec) {
      const r = await kubectl(['patch', '-n', namespace, `zg/${name}`, '--type=merge', '-p', JSON.stringify({ spec })], { kubeconfig });
      return r.code === 0 ? {} : { refused: r.stderr };
    },
    async get() {
      return JSON.parse(await kubectlOk(['get', '-n', namespace, `zg/${name}`, '-o', 'json'], { kubeconfig })) as ZGuest;
    },
    async directory() {
      return (await suite.host().hypervisor.describeGuest(userid))?.directory.lines ?? [];
    },
    until: (what, probe) => eventually(what, () => probe().catch(() => false), controller ? [controller] : [], 90_000),
  };
}

describe('field contract on a real apiserver (chart pods)', () => {
  it('every ZGuest field of the lifecycle table ends in its declared outcome', async () => {
    const { kubeconfig, namespace } = env();
    const fields = contractFields();
    expect(fields.filter((f) => !EDITS[f.path]).map((f) => f.path)).toEqual([]);
    await applyObjects(env(), [
      { apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuestClass', metadata: { name: CONTRACT_CLASS }, spec: { vcpus: 1, memory: '512M' } },
      { apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name: 'fcon01' }, spec: BASE_SPEC },
    ]);
    const w = world('fcon01', CONTRACT_USERID);
    await w.until('the guest Ready', async () => isReady(await w.get()));

    await runContract(w);

    await kubectlOk(['delete', '-n', namespace, 'zg/fcon01', '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
    expect((await w.directory())[0]).toMatch(/^USER FCON01 /);
  }, 600_000);

  it('a guest without maxCpus/maxMemory takes them from its ZHost spec.defaults', async () => {
    const { kubeconfig } = env();
    await kubectlOk(['patch', 'zh/default', '--type=merge', '-p', JSON.stringify({ spec: { defaults: { maxCpus: 16, maxMemory: '8G' } } })], { kubeconfig });
    await applyObjects(env(), [{ apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name: 'hdef01' }, spec: { userid: 'HDEF01', vcpus: 1, memory: '1G' } }]);
    const w = world('hdef01', 'HDEF01');
    await w.until('the guest Ready', async () => isReady(await w.get()));
    const lines = await w.directory();
    expect(lines).toContain('MACHINE ESA 16');
    expect(lines[0]).toMatch(/^USER HDEF01 \S+ 1G 8G /);
    expect((await w.get()).status?.effective).toMatchObject({ maxCpus: 16, maxMemory: '8G' });
  }, 180_000);
});
