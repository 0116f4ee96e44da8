/**
 * The clusterctl repository (clusterctl/infrastructure-zvm/<version>/) is what src/api and src/capi render,
 * and has what clusterctl and Cluster API's provider contract ask of it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { renderClusterctlRepository, repositoryDir } from '../../../src/capi/render.js';

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; [k: string]: unknown };
const files = renderClusterctlRepository();
const objects = (file: string): Obj[] => parseAllDocuments(files.get(file)!).map((d) => d.toJSON() as Obj);

describe('clusterctl repository', () => {
  it.each([...files.keys()])('%s is up to date (run `npm run generate` when this fails)', (file) => {
    expect(readFileSync(join(repositoryDir(), file), 'utf8')).toBe(files.get(file));
  });

  it('declares the v1beta2 contract for this release series', () => {
    expect(objects('metadata.yaml')).toEqual([{ apiVersion: 'clusterctl.cluster.x-k8s.io/v1alpha3', kind: 'Metadata', releaseSeries: [{ major: 0, minor: 1, contract: 'v1beta2' }] }]);
  });

  it('has one Namespace, every object labelled for the provider, every CRD of both groups', () => {
    const all = objects('infrastructure-components.yaml');
    expect(all.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name)).toEqual(['capzvm-system']);
    expect(all.filter((o) => o.metadata.labels?.['cluster.x-k8s.io/provider'] !== 'infrastructure-zvm').map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([]);
    const crds = all.filter((o) => o.kind === 'CustomResourceDefinition');
    expect(crds.map((c) => c.metadata.name)).toEqual(expect.arrayContaining(['zvmmachines.infrastructure.cluster.x-k8s.io', 'zvmclusters.infrastructure.cluster.x-k8s.io', 'zguests.zvm.dev', 'zhosts.zvm.dev']));
    expect(crds.find((c) => c.metadata.name === 'zvmmachines.infrastructure.cluster.x-k8s.io')?.metadata.labels?.['cluster.x-k8s.io/v1beta2']).toBe('v1alpha1');
  });

  it('lets Cluster API\'s manager use the infrastructure kinds through an aggregated role', () => {
    const role = objects('infrastructure-components.yaml').find((o) => o.kind === 'ClusterRole' && o.metadata.labels?.['cluster.x-k8s.io/aggregate-to-manager'] === 'true');
    expect(role?.rules).toEqual([expect.objectContaining({ apiGroups: ['infrastructure.cluster.x-k8s.io'], resources: expect.arrayContaining(['zvmmachines', 'zvmclusters', 'zvmmachinetemplates', 'zvmclustertemplates']) })]);
  });

  it('runs the operator\'s controller with --capi in a container named manager, with --namespace', () => {
    const deployment = objects('infrastructure-components.yaml').find((o) => o.kind === 'Deployment') as Obj & { spec: { template: { spec: { containers: { name: string; image: string; args: string[] }[] } } } };
    const [manager] = deployment.spec.template.spec.containers;
    expect(manager).toMatchObject({ name: 'manager', image: expect.stringMatching(/^\$\{ZVM_CONTROLLER_IMAGE:=.+\}$/) });
    expect(manager!.args.slice(0, 2)).toEqual(['controller', '--capi']);
    expect(manager!.args).toEqual(expect.arrayContaining(['--namespace=$(POD_NAMESPACE)']));
  });

  it('needs no clusterctl variable set: each has a default, and clusterctl takes an empty one as none', () => {
    const vars = [...files.get('infrastructure-components.yaml')!.matchAll(/\$\{([A-Za-z0-9_]+)(?::=([^}]*))?\}/g)];
    expect(vars.length).toBeGreaterThan(0);
    expect(vars.filter(([, , dflt]) => !dflt).map(([v]) => v)).toEqual([]);
  });

  it('templates the cluster with Cluster API\'s variables and ours, the md flavor adding a worker MachineDeployment', () => {
    const text = files.get('cluster-template-md.yaml')!;
    for (const v of ['${CLUSTER_NAME}', '${NAMESPACE}', '${KUBERNETES_VERSION}', '${CONTROL_PLANE_MACHINE_COUNT}', '${WORKER_MACHINE_COUNT}', '${ZVM_IMAGE}', '${ZVM_CONTROL_PLANE_ENDPOINT_HOST}']) expect(text).toContain(v);
    expect(objects('cluster-template.yaml').map((o) => o.kind)).toEqual(['Cluster', 'ZVMCluster', 'KubeadmControlPlane', 'ZVMMachineTemplate']);
    expect(objects('cluster-template-md.yaml').map((o) => o.kind)).toEqual(['Cluster', 'ZVMCluster', 'KubeadmControlPlane', 'ZVMMachineTemplate', 'MachineDeployment', 'ZVMMachineTemplate', 'KubeadmConfigTemplate']);
  });
});
