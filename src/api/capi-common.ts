/**
 * The Cluster API side of the API (docs/kubernetes-on-zvm.md): the infrastructure group our ZVM* kinds
 * live in, the contract label their CRDs carry, and the Cluster API core kinds the provider reads
 * (Cluster, Machine) and the Secret bootstrap data comes in. The core kinds are "foreign": the store
 * reads and watches them like ours, but no CRD is generated and no schema is imposed on them.
 */
import { Type, type TObject } from '@sinclair/typebox';
import type { KindDefinition } from './kinds.js';

export const INFRA_GROUP = 'infrastructure.cluster.x-k8s.io';
export const INFRA_VERSION = 'v1alpha1';
export const INFRA_API_VERSION = `${INFRA_GROUP}/${INFRA_VERSION}`;

/** Cluster API reads the versions of a provider's CRD that speak its contract from this label (underscore-separated). */
export const CAPI_CONTRACT_LABEL = 'cluster.x-k8s.io/v1beta2';

export const CAPI_GROUP = 'cluster.x-k8s.io';
export const CAPI_VERSION = 'v1beta2';
export const CAPI_API_VERSION = `${CAPI_GROUP}/${CAPI_VERSION}`;
/** Every object of a cluster carries it (Cluster API sets it on Machines; templates set it on ours). */
export const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';
/** The annotation that pauses one object; Cluster spec.paused pauses all of a cluster's. */
export const PAUSED_ANNOTATION = 'cluster.x-k8s.io/paused';
/** `clusterctl move` sets it on each source object just before deleting it: release it, touch nothing outside the store. */
export const DELETE_FOR_MOVE_ANNOTATION = 'clusterctl.cluster.x-k8s.io/delete-for-move';

const anything = Type.Object({}, { additionalProperties: true });

function foreign(kind: string, plural: string, group: string, version: string): KindDefinition {
  return {
    kind, plural, singular: kind.toLowerCase(), scope: 'Namespaced', shortNames: [], spec: anything, status: anything,
    printerColumns: [], fields: {}, host: 'none', holdsHostDeletion: false, restVerdict: null, controller: 'none', group, version, foreign: true,
  };
}

/** Kinds other controllers own that the provider reads: a Secret is a core (`/api/v1`) object, group ''. */
export const FOREIGN_KINDS: Record<string, KindDefinition> = {
  Cluster: foreign('Cluster', 'clusters', CAPI_GROUP, CAPI_VERSION),
  Machine: foreign('Machine', 'machines', CAPI_GROUP, CAPI_VERSION),
  Secret: foreign('Secret', 'secrets', '', 'v1'),
};

/**
 * An infrastructure template's spec (contract: `spec.template.spec`): the metadata and spec Cluster API
 * copies into each object it makes from it. `what` names that object in the descriptions.
 */
export function infraTemplateSpec<S extends TObject>(spec: S, what: string, description: string) {
  return Type.Object(
    {
      template: Type.Object(
        {
          metadata: Type.Optional(Type.Object(
            {
              labels: Type.Optional(Type.Record(Type.String(), Type.String(), { description: `labels of ${what}` })),
              annotations: Type.Optional(Type.Record(Type.String(), Type.String(), { description: `annotations of ${what}` })),
            },
            { additionalProperties: false, description: `metadata ${what} gets` },
          )),
          spec,
        },
        { additionalProperties: false, description: `what ${what} made from it is` },
      ),
    },
    { additionalProperties: false, description },
  );
}
