/** What both Cluster API controllers (zvm-machine, zvm-cluster) read of Cluster API's own Cluster. No I/O. */
import { DELETE_FOR_MOVE_ANNOTATION, PAUSED_ANNOTATION, type Resource } from '../../api/index.js';

/** The parts of Cluster API's Cluster (v1beta2) the provider reads. */
export type Cluster = Resource<
  { paused?: boolean; infrastructureRef?: { name?: string; kind?: string } },
  { initialization?: { infrastructureProvisioned?: boolean } }
>;

/** Cluster API's pause: the Cluster's spec.paused, or the annotation on the object itself. */
export function isPaused(obj: Resource, cluster: Cluster | undefined): boolean {
  return cluster?.spec.paused === true || obj.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined;
}

/** Deleted by `clusterctl move` from the cluster it leaves: the object lives on in another cluster. */
export function isDeletedForMove(obj: Resource): boolean {
  return Boolean(obj.metadata.deletionTimestamp) && obj.metadata.annotations?.[DELETE_FOR_MOVE_ANNOTATION] !== undefined;
}
