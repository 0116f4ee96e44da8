import type { Resource, ZFcpTemplate, ZVolume } from '../../api/index.js';
import type { KeyMapper } from '../../runtime/result.js';
import { keyOf } from '../../store/port.js';
import { isSettled } from './phases.js';

/** A ledger that changed wakes the volumes waiting for it to show their connections taken or given back. */
export function mapTemplateToVolumes(volumes: () => ZVolume[]): KeyMapper {
  return (obj: Resource) => {
    const fcps = new Set(((obj as ZFcpTemplate).status?.fcps ?? []).map((r) => r.fcp));
    return volumes()
      .filter((v) => (v.metadata.deletionTimestamp || !isSettled(v)) && v.spec.fcps.some((f) => fcps.has(f.toLowerCase())))
      .map(keyOf);
  };
}
