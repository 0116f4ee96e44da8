/**
 * clusterctl's cluster templates for the z/VM provider (Cluster API v1beta2 objects), with the variables
 * `clusterctl generate cluster` fills: Cluster API's own (${CLUSTER_NAME}, ${NAMESPACE},
 * ${KUBERNETES_VERSION}, ${CONTROL_PLANE_MACHINE_COUNT}, ${WORKER_MACHINE_COUNT}) and ours, ${ZVM_…}.
 * cluster-template.yaml: the Cluster, its ZVMCluster and a KubeadmControlPlane; the `md` flavor adds a
 * MachineDeployment of workers. Pure.
 */
import { CAPI_API_VERSION, INFRA_API_VERSION, INFRA_GROUP } from '../api/capi-common.js';

type Obj = Record<string, unknown>;
const NS = '${NAMESPACE}';
const CLUSTER = '${CLUSTER_NAME}';
const labels = { 'cluster.x-k8s.io/cluster-name': CLUSTER };
const ref = (apiGroup: string, kind: string, name: string) => ({ apiGroup, kind, name });

/** The variables of ours a template uses, with their defaults (the docs list them). */
export const TEMPLATE_VARIABLES: Record<string, string> = {
  ZVM_HOST: 'default',
  ZVM_CONTROL_PLANE_ENDPOINT_HOST: '(required) address of the Kubernetes API, e.g. a VIP on the vswitch',
  ZVM_CONTROL_PLANE_CLASS: 'medium',
  ZVM_WORKER_CLASS: 'medium',
  ZVM_IMAGE: '(required) the ZImage written onto each node\'s root disk',
  ZVM_VSWITCH: 'VSWITCH1',
  ZVM_BOOTSTRAP_FORMAT: 'cloud-config',
};

/** ${ZVM_X:=default} for a variable with a default, ${ZVM_X} for a required one. */
const v = (name: string): string => (TEMPLATE_VARIABLES[name]!.startsWith('(required)') ? `\${${name}}` : `\${${name}:=${TEMPLATE_VARIABLES[name]}}`);

/**
 * The node's providerID is the guest's: zvm://<ZHost>/<USERID>. The guest asks CP for its userid (vmcp);
 * the host is the cluster's (one ZHost per template). The kubelet reads KUBELET_EXTRA_ARGS from
 * /etc/default/kubelet (deb) or /etc/sysconfig/kubelet (rpm).
 */
export const PROVIDER_ID_COMMAND =
  `echo "KUBELET_EXTRA_ARGS=--provider-id=zvm://\${ZVM_HOST:=default}/$(vmcp query userid | cut -d' ' -f1)" | tee /etc/default/kubelet > /etc/sysconfig/kubelet`;

function machineTemplate(name: string, cls: string): Obj {
  return {
    apiVersion: INFRA_API_VERSION, kind: 'ZVMMachineTemplate',
    metadata: { name, namespace: NS, labels },
    spec: { template: { spec: { class: v(cls), image: v('ZVM_IMAGE'), useridPrefix: 'K8S', nics: [{ vdev: '1000', vswitch: v('ZVM_VSWITCH') }] } } },
  };
}

function controlPlane(): Obj[] {
  return [
    {
      apiVersion: CAPI_API_VERSION, kind: 'Cluster',
      metadata: { name: CLUSTER, namespace: NS, labels },
      spec: {
        clusterNetwork: { pods: { cidrBlocks: ['192.168.0.0/16'] } },
        infrastructureRef: ref(INFRA_GROUP, 'ZVMCluster', CLUSTER),
        controlPlaneRef: ref('controlplane.cluster.x-k8s.io', 'KubeadmControlPlane', `${CLUSTER}-control-plane`),
      },
    },
    {
      apiVersion: INFRA_API_VERSION, kind: 'ZVMCluster',
      metadata: { name: CLUSTER, namespace: NS, labels },
      spec: { hosts: [v('ZVM_HOST')], controlPlaneEndpoint: { host: v('ZVM_CONTROL_PLANE_ENDPOINT_HOST'), port: 6443 } },
    },
    {
      apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2', kind: 'KubeadmControlPlane',
      metadata: { name: `${CLUSTER}-control-plane`, namespace: NS, labels },
      spec: {
        replicas: '${CONTROL_PLANE_MACHINE_COUNT}',
        version: '${KUBERNETES_VERSION}',
        machineTemplate: { spec: { infrastructureRef: ref(INFRA_GROUP, 'ZVMMachineTemplate', `${CLUSTER}-control-plane`) } },
        kubeadmConfigSpec: {
          format: v('ZVM_BOOTSTRAP_FORMAT'),
          preKubeadmCommands: [PROVIDER_ID_COMMAND],
        },
      },
    },
    machineTemplate(`${CLUSTER}-control-plane`, 'ZVM_CONTROL_PLANE_CLASS'),
  ];
}

function workers(): Obj[] {
  const name = `${CLUSTER}-md-0`;
  return [
    {
      apiVersion: CAPI_API_VERSION, kind: 'MachineDeployment',
      metadata: { name, namespace: NS, labels },
      spec: {
        clusterName: CLUSTER,
        replicas: '${WORKER_MACHINE_COUNT}',
        selector: { matchLabels: {} },
        template: {
          metadata: { labels },
          spec: {
            clusterName: CLUSTER,
            version: '${KUBERNETES_VERSION}',
            bootstrap: { configRef: ref('bootstrap.cluster.x-k8s.io', 'KubeadmConfigTemplate', name) },
            infrastructureRef: ref(INFRA_GROUP, 'ZVMMachineTemplate', name),
          },
        },
      },
    },
    machineTemplate(name, 'ZVM_WORKER_CLASS'),
    {
      apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2', kind: 'KubeadmConfigTemplate',
      metadata: { name, namespace: NS, labels },
      spec: { template: { spec: { format: v('ZVM_BOOTSTRAP_FORMAT'), preKubeadmCommands: [PROVIDER_ID_COMMAND] } } },
    },
  ];
}

/** File name → objects: the default template and the `md` flavor. */
export function clusterTemplates(): Map<string, Obj[]> {
  return new Map([
    ['cluster-template.yaml', controlPlane()],
    ['cluster-template-md.yaml', [...controlPlane(), ...workers()]],
  ]);
}
