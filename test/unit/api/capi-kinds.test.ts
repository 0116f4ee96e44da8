/**
 * The Cluster API kinds (ZVMCluster, ZVMMachine and their templates) are defined once in src/api like
 * ours, in their own group; the core kinds the provider reads (Cluster, Machine, Secret) are foreign:
 * addressed by their own group, kept whole, never validated against a schema of ours.
 */
import { parse } from 'yaml';
import { INFRA_API_VERSION, kindDefinition, validateResource } from '../../../src/api/index.js';
import { renderCrds } from '../../../src/api/render-crds.js';
import { InvalidSpecError } from '../../../src/errors.js';
import { createEmbeddedStore } from '../../../src/store/embedded/index.js';
import { collectionPath } from '../../../src/store/kube/resource-client.js';

const machine = (spec: Record<string, unknown>) => ({ apiVersion: INFRA_API_VERSION, kind: 'ZVMMachine', metadata: { name: 'm1', namespace: 'ns' }, spec });

describe('Cluster API kinds', () => {
  it('take any ZGuest field but userid, host placement and power, plus where the guest goes', () => {
    expect(() => validateResource(machine({ class: 'small', image: 'rhcos', nics: [{ vdev: '1000', vswitch: 'VSW1' }], host: 'zvm1', useridPrefix: 'K8S' }))).not.toThrow();
    expect(() => validateResource(machine({ class: 'small', userid: 'LINUX1' }))).toThrow(/userid/);
    expect(() => validateResource(machine({ class: 'small', powerState: 'Stopped' }))).toThrow(/powerState/);
    expect(() => validateResource(machine({ image: 'rhcos' }))).toThrow(/vcpus and memory are required/);
    expect(() => validateResource(machine({ class: 'small', useridPrefix: 'TOOLONG' }))).toThrow(InvalidSpecError);
  });

  it('accept a providerID only in the zvm://<ZHost>/<USERID> form', () => {
    expect(() => validateResource(machine({ class: 'small', providerID: 'zvm://zvm1/K8SAB12C' }))).not.toThrow();
    expect(() => validateResource(machine({ class: 'small', providerID: 'aws:///i-123' }))).toThrow(/providerID/);
  });

  it('refuse the apiVersion of our other group', () => {
    expect(() => validateResource({ ...machine({ class: 'small' }), apiVersion: 'zvm.dev/v1beta1' })).toThrow(/apiVersion/);
  });

  it('generate CRDs in infrastructure.cluster.x-k8s.io with the contract label', () => {
    const crd = parse(renderCrds().get('infrastructure.cluster.x-k8s.io_zvmmachines.yaml')!) as {
      metadata: { name: string; labels: Record<string, string> }; spec: { group: string; scope: string; names: { listKind: string } };
    };
    expect(crd.metadata).toEqual({ name: 'zvmmachines.infrastructure.cluster.x-k8s.io', labels: { 'cluster.x-k8s.io/v1beta2': 'v1alpha1' } });
    expect(crd.spec).toMatchObject({ group: 'infrastructure.cluster.x-k8s.io', scope: 'Namespaced', names: { listKind: 'ZVMMachineList' } });
    expect([...renderCrds('zvm.dev').keys()].every((f) => f.startsWith('zvm.dev_'))).toBe(true);
  });

  it('address each kind under its own group: ours, Cluster API core, and the core API of Secrets', () => {
    expect(collectionPath(kindDefinition('ZVMMachine'), 'ns')).toBe('/apis/infrastructure.cluster.x-k8s.io/v1alpha1/namespaces/ns/zvmmachines');
    expect(collectionPath(kindDefinition('Machine'), 'ns')).toBe('/apis/cluster.x-k8s.io/v1beta2/namespaces/ns/machines');
    expect(collectionPath(kindDefinition('Secret'), 'ns')).toBe('/api/v1/namespaces/ns/secrets');
    expect(collectionPath(kindDefinition('ZGuest'), 'ns')).toBe('/apis/zvm.dev/v1beta1/namespaces/ns/zguests');
  });

  it('keep a foreign object whole in the embedded store (a Secret\'s data and type)', async () => {
    const store = createEmbeddedStore();
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'b', namespace: 'ns' }, type: 'cluster.x-k8s.io/secret', data: { value: 'aGk=', format: 'aWduaXRpb24=' } };
    await store.create(secret as never);
    expect(await store.get('Secret', { namespace: 'ns', name: 'b' })).toMatchObject({ type: 'cluster.x-k8s.io/secret', data: { value: 'aGk=' } });
  });
});
