/** What both Cluster API controllers (zvm-machine, zvm-cluster) read of Cluster API's own Cluster. No I/O. */
import { PAUSED_ANNOTATION, type Resource } from '../../api/index.js';

/** The parts of Cluster API's Cluster (v1beta2) the provider reads. */
export type Cluster = Resource<
  { paused?: boolean; infrastructureRef?: { name?: string; kind?: string } },
  { initialization?: { infrastructureProvisioned?: boolean } }
>;

/** Cluster API's pause: the Cluster's spec.paused, or the annotation on the object itself. */
export function isPaused(obj: Resource, cluster: Cluster | undefined): boolean {
  return cluster?.spec.paused === true || obj.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined;
}
