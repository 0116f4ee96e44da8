import { computeForeignOwners, FieldOwnedError, managerOfField, type ManagedFieldsEntry } from '../../../src/store/kube/field-owners.js';

// managedFields in the shape the apiserver writes them (kubectl apply, then the operator and REST); the kube e2e test
// test/e2e/operator/rest-ownership.test.ts meets the real ones
const MANAGED: ManagedFieldsEntry[] = [
  {
    manager: 'kubectl-client-side-apply', operation: 'Update',
    fieldsV1: { 'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } }, 'f:spec': { '.': {}, 'f:host': {}, 'f:memory': {}, 'f:powerState': {}, 'f:userid': {}, 'f:vcpus': {} } },
  },
  { manager: 'zvm-operator', operation: 'Update', fieldsV1: { 'f:metadata': { 'f:finalizers': { '.': {}, 'v:"zvm.dev/guest"': {} } } } },
  { manager: 'zvm-operator', operation: 'Update', subresource: 'status', fieldsV1: { 'f:status': { '.': {}, 'f:phase': {} } } },
  { manager: 'zvm-rest', operation: 'Update', fieldsV1: { 'f:spec': { 'f:nics': {} } } },
];
const OURS = new Set(['zvm-rest', 'zvm-operator']);

describe('computeForeignOwners', () => {
  it('names the manager that owns a field the write would change', () => {
    expect(computeForeignOwners(MANAGED, OURS, ['powerState'])).toEqual([{ manager: 'kubectl-client-side-apply', operation: 'Update', fields: ['spec.powerState'] }]);
  });

  it('lets a write through when only the operator, REST or nobody owns its fields', () => {
    expect(computeForeignOwners(MANAGED, OURS, ['nics', 'disks'])).toEqual([]);
  });

  it('counts every spec field of a delete, and never the status subresource', () => {
    const owners = computeForeignOwners(MANAGED, new Set(['zvm-rest']), undefined);
    expect(owners).toEqual([{ manager: 'kubectl-client-side-apply', operation: 'Update', fields: ['spec.host', 'spec.memory', 'spec.powerState', 'spec.userid', 'spec.vcpus'] }]);
  });

  it('reads server-side apply entries (Argo CD) the same way', () => {
    const applied: ManagedFieldsEntry[] = [{ manager: 'argocd-controller', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:vcpus': {} } } }];
    expect(computeForeignOwners(applied, OURS, ['vcpus', 'memory'])).toEqual([{ manager: 'argocd-controller', operation: 'Apply', fields: ['spec.vcpus'] }]);
  });

  it('says who owns what and how to take over', () => {
    const err = new FieldOwnedError('ZGuest zvm-system/linux01', computeForeignOwners(MANAGED, OURS, ['powerState', 'vcpus']));
    expect(err.code).toBe('CONFLICT');
    expect(err.message).toBe('ZGuest zvm-system/linux01 is managed by "kubectl-client-side-apply" (spec.powerState, spec.vcpus); change it there, or let REST take the fields over (zvm-operator rest --take-over)');
  });
});

describe('managerOfField', () => {
  const approval = ['metadata', 'annotations', 'zvm.dev/approved-plan'];
  const annotated = (manager: string, time: string): ManagedFieldsEntry => ({ manager, operation: 'Update', time, fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:zvm.dev/approved-plan': {} } } } });

  it('names the manager whose entry owns the field, and nobody when none does', () => {
    expect(managerOfField([...MANAGED, annotated('kubectl-annotate', '2026-01-01T00:00:00Z')], approval)).toBe('kubectl-annotate');
    expect(managerOfField(MANAGED, approval)).toBeUndefined();
    expect(managerOfField(MANAGED, ['spec', 'nics'])).toBe('zvm-rest');
  });

  it('names the latest writer when several managers share the field', () => {
    expect(managerOfField([annotated('alice-tool', '2026-01-02T00:00:00Z'), annotated('kubectl-annotate', '2026-01-01T00:00:00Z')], approval)).toBe('alice-tool');
  });
});
