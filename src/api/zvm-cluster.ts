/**
 * ZVMCluster: the Cluster API InfraCluster of a z/VM cluster (contract v1beta2). Its failure domains are
 * the ZHosts its machines may use; the control-plane endpoint is passed through (a z/VM cluster has no
 * load balancer of its own to make one).
 */
import { Type, type Static } from '@sinclair/typebox';
import { CommonStatusFields, type Resource } from './common.js';
import { infraTemplateSpec } from './capi-common.js';
import type { CrossFieldRule } from './kinds.js';
import { fixed, live, type LifecycleTable } from './lifecycle.js';

export const ApiEndpoint = Type.Object(
  {
    host: Type.String({ minLength: 1, maxLength: 512, description: 'host name or address of the Kubernetes API' }),
    port: Type.Integer({ minimum: 1, maximum: 65535, description: 'its port, usually 6443' }),
  },
  { additionalProperties: false, description: 'the control plane\'s API endpoint' },
);

export const ZVMClusterSpec = Type.Object(
  {
    controlPlaneEndpoint: Type.Optional(ApiEndpoint),
    hosts: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { minItems: 1, maxItems: 100, uniqueItems: true, description: 'ZHosts the cluster\'s machines may use, one failure domain each; default the host named default' })),
    hostSelector: Type.Optional(Type.Object(
      { matchLabels: Type.Record(Type.String(), Type.String(), { description: 'labels a ZHost must carry' }) },
      { additionalProperties: false, description: 'instead of hosts: the ZHosts carrying these labels' },
    )),
    controlPlaneHosts: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { maxItems: 100, uniqueItems: true, description: 'the failure domains control-plane machines may use; default all of them' })),
  },
  { additionalProperties: false, description: 'where the cluster\'s guests may go, and its API endpoint' },
);
export type ZVMClusterSpec = Static<typeof ZVMClusterSpec>;

/** How a change to each ZVMCluster field is handled (api/lifecycle.ts). */
export const ZVMCLUSTER_FIELDS: LifecycleTable = {
  controlPlaneEndpoint: fixed('Cluster API copies it to the Cluster once, and every node is configured with it'),
  hosts: live('status.failureDomains follows at once; machines already placed stay on their hosts'),
  hostSelector: live('status.failureDomains follows at once; machines already placed stay on their hosts', true),
  controlPlaneHosts: live('the controlPlane mark of each failure domain follows at once'),
};

export const ZVMCLUSTER_RULES: CrossFieldRule<ZVMClusterSpec>[] = [
  {
    path: '/spec/hostSelector',
    message: 'give hosts or hostSelector, not both',
    cel: '!has(self.hosts) || !has(self.hostSelector)',
    holds: (s) => s.hosts === undefined || s.hostSelector === undefined,
  },
];

export const FailureDomain = Type.Object({
  name: Type.String({ description: 'the ZHost' }),
  controlPlane: Type.Optional(Type.Boolean({ description: 'control-plane machines may go there' })),
  attributes: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'facts about the host' })),
});
export type FailureDomain = Static<typeof FailureDomain>;

export const ZVMClusterStatus = Type.Object(
  {
    ...CommonStatusFields,
    initialization: Type.Optional(Type.Object(
      { provisioned: Type.Optional(Type.Boolean({ description: 'the cluster\'s hosts are known; machines may be made' })) },
      { description: 'what Cluster API waits for (contract v1beta2)' },
    )),
    failureDomains: Type.Optional(Type.Array(FailureDomain, { maxItems: 100, description: 'the ZHosts machines may land on' })),
  },
  { description: 'the failure domains Cluster API spreads machines over' },
);
export type ZVMClusterStatus = Static<typeof ZVMClusterStatus>;
export type ZVMCluster = Resource<ZVMClusterSpec, ZVMClusterStatus>;

/** InfraClusterTemplate, for ClusterClass. */
export const ZVMClusterTemplateSpec = infraTemplateSpec(ZVMClusterSpec, 'the ZVMCluster', 'the ZVMCluster of each Cluster of a ClusterClass');
export type ZVMClusterTemplateSpec = Static<typeof ZVMClusterTemplateSpec>;

export const ZVMCLUSTER_TEMPLATE_FIELDS: LifecycleTable = {
  template: live('read when a ClusterClass makes a new Cluster\'s ZVMCluster from it', true),
};
export const ZVMClusterTemplateStatus = Type.Object({}, { description: 'nothing: a template is only read' });
export type ZVMClusterTemplate = Resource<ZVMClusterTemplateSpec, Record<string, never>>;

export const ZVMCLUSTER_FINALIZER = 'zvmcluster.infrastructure.cluster.x-k8s.io';
