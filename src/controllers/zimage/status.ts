import type { HvErrorFields } from '../../errors.js';
import { EXPORT_PROGRESS_ANNOTATION, type ZImage, type ZImageStatus } from '../../api/index.js';
import type { ImageRecord } from '../../hypervisor/index.js';
import { mergeConditions, type ConditionInput } from '../conditions.js';

/** What one reconcile of a ZImage found or did, for the status. */
export type ImageOutcome =
  | { kind: 'ready'; record: ImageRecord; how: 'Imported' | 'Captured' }
  | { kind: 'failed'; reason: string; message: string; error?: HvErrorFields }
  | { kind: 'waiting'; reason: string; message: string }
  | { kind: 'deleting' };

/** Pure: the status of a ZImage after an outcome. */
export function computeZImageStatus(image: ZImage, hostName: string, outcome: ImageOutcome, now: Date): ZImageStatus {
  const previous = image.status ?? {};
  const status: ZImageStatus = { ...previous, observedGeneration: image.metadata.generation, host: hostName };
  let conditions: ConditionInput[];
  switch (outcome.kind) {
    case 'ready': {
      const r = outcome.record;
      Object.assign(status, {
        imageName: r.name, osVersion: r.osVersion, md5sum: r.md5sum, diskSizeUnits: r.diskSizeUnits, diskType: r.diskType,
        imageSizeInBytes: r.sizeBytes, type: r.type, path: r.path, phase: 'Ready', lastError: undefined,
        ...(r.comments !== null ? { comments: r.comments } : {}),
      });
      conditions = [
        { type: 'Ready', status: 'True', reason: outcome.how, message: `image ${r.name} is in the repository (${r.diskSizeUnits})` },
        { type: 'Synced', status: 'True', reason: 'ReconcileSuccess', message: '' },
      ];
      break;
    }
    case 'failed':
      status.phase = 'Failed';
      status.lastError = outcome.error;
      conditions = [
        { type: 'Ready', status: 'False', reason: outcome.reason, message: outcome.message },
        { type: 'Synced', status: 'False', reason: outcome.reason, message: outcome.message },
      ];
      break;
    case 'waiting':
      status.phase = 'Pending';
      conditions = [
        { type: 'Ready', status: 'False', reason: outcome.reason, message: outcome.message },
        { type: 'Synced', status: 'False', reason: outcome.reason, message: outcome.message },
      ];
      break;
    case 'deleting':
      status.phase = 'Deleting';
      conditions = [{ type: 'Ready', status: 'False', reason: 'Deleting', message: 'the image is being removed from the repository' }];
      break;
  }
  status.conditions = mergeConditions(previous.conditions, conditions, now.toISOString(), image.metadata.generation);
  return JSON.parse(JSON.stringify(status)) as ZImageStatus;
}

/** Made once: a Ready image, or a terminal failure of this generation, needs nothing more. */
export function isSettled(image: ZImage): boolean {
  const s = image.status;
  if (!s || s.observedGeneration !== image.metadata.generation) return false;
  return s.phase === 'Ready' || s.phase === 'Failed';
}

/**
 * Pure: a settled image's status with the export progress REST put on its annotation, or undefined
 * when there is none or status already shows it. A sample that does not parse is left out.
 */
export function withExportProgress(image: ZImage): ZImageStatus | undefined {
  const raw = image.metadata.annotations?.[EXPORT_PROGRESS_ANNOTATION];
  if (!raw) return undefined;
  let progress: ZImageStatus['progress'];
  try {
    progress = JSON.parse(raw) as ZImageStatus['progress'];
  } catch {
    return undefined;
  }
  const shaped = typeof progress?.bytesDone === 'number' && typeof progress.summary === 'string' && typeof progress.updatedAt === 'string';
  if (!shaped || JSON.stringify(progress) === JSON.stringify(image.status?.progress)) return undefined;
  return { ...image.status, progress };
}
