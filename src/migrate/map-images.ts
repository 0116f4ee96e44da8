/**
 * feilong's image table → ZImage records that point at the files already in the repository
 * (`<repository>/netboot/<os>/<name>/<root vdev>`, feilong's layout and ours): the status carries the
 * record and says Ready, so the ZImage controller, finding the image settled, imports nothing.
 */
import { API_VERSION, isSafeImageName, isSafeOsVersion, type ZImage, type ZImageStatus } from '../api/index.js';
import type { FeilongImageRow } from './feilong-db.js';
import { isResourceName, migratedMetadata, type MigrationPlan } from './model.js';

export interface ImageMapOptions {
  host: string;
  /** the repository root on the management guest (feilong's default /var/lib/zvmsdk/images) */
  repository: string;
  /** file name of the image in its folder: the root disk's vdev (feilong's user_root_vdev, 0100) */
  rootVdev: string;
  /** ISO time of the migration, for the Ready condition */
  now: string;
}

/** RHCOS rows carry the Python repr of a dict: {'disk_type': 'SCSI'}. */
function diskTypeOf(comments: string | null): 'DASD' | 'SCSI' | undefined {
  const m = /'disk_type'\s*:\s*'(DASD|SCSI)'/i.exec(comments ?? '');
  return m ? (m[1].toUpperCase() as 'DASD' | 'SCSI') : undefined;
}

function problemOf(row: FeilongImageRow): string | undefined {
  if (!isSafeImageName(row.imagename)) return `image name ${JSON.stringify(row.imagename)} is not a safe repository folder name`;
  if (!isResourceName(row.imagename.toLowerCase())) return `image name ${JSON.stringify(row.imagename)} cannot be a resource name`;
  if (!isSafeOsVersion(row.imageosdistro)) return `os version ${JSON.stringify(row.imageosdistro)} is not a safe repository folder name like rhel8.6`;
  if (!/^[0-9]+:(CYL|BLK)$/i.test(row.diskSizeUnits)) return `disk_size_units ${JSON.stringify(row.diskSizeUnits)} is not <n>:CYL or <n>:BLK`;
  if (!/^[0-9]+$/.test(row.imageSizeInBytes)) return `image_size_in_bytes ${JSON.stringify(row.imageSizeInBytes)} is not a byte count`;
  return undefined;
}

export function mapImages(rows: readonly FeilongImageRow[], o: ImageMapOptions): MigrationPlan {
  const plan: MigrationPlan = { items: [], unmapped: [] };
  for (const row of rows) {
    const source = `sdk_image.sqlite image ${row.imagename}`;
    const problem = problemOf(row);
    if (problem) {
      plan.unmapped.push({ source, reason: problem });
      continue;
    }
    const os = row.imageosdistro.toLowerCase();
    const path = `${o.repository.replace(/\/+$/, '')}/netboot/${os}/${row.imagename}/${o.rootVdev}`;
    const diskType = diskTypeOf(row.comments);
    const md5ok = /^[0-9a-fA-F]{32}$/.test(row.md5sum);
    const image: ZImage = {
      apiVersion: API_VERSION,
      kind: 'ZImage',
      metadata: { name: row.imagename.toLowerCase(), ...migratedMetadata(source) },
      spec: {
        host: o.host,
        imageName: row.imagename,
        source: { import: { url: `file://${path}`, osVersion: os, ...(md5ok ? { md5sum: row.md5sum.toLowerCase() } : {}), ...(diskType ? { diskType } : {}) } },
      },
    };
    const status: ZImageStatus = {
      observedGeneration: 1,
      phase: 'Ready',
      host: o.host,
      imageName: row.imagename,
      osVersion: row.imageosdistro,
      md5sum: row.md5sum,
      diskSizeUnits: row.diskSizeUnits,
      diskType: /BLK$/i.test(row.diskSizeUnits) ? 'FBA' : 'CKD',
      imageSizeInBytes: Number(row.imageSizeInBytes),
      type: row.type,
      ...(row.comments !== null ? { comments: row.comments } : {}),
      path,
      conditions: [
        { type: 'Ready', status: 'True', reason: 'Migrated', message: `image ${row.imagename} is in the repository (migrated from feilong)`, lastTransitionTime: o.now, observedGeneration: 1 },
        { type: 'Synced', status: 'True', reason: 'Migrated', message: '', lastTransitionTime: o.now, observedGeneration: 1 },
      ],
    };
    if (!md5ok) plan.unmapped.push({ source, reason: `md5sum ${JSON.stringify(row.md5sum)} is not 32 hex digits: kept in status, not in spec` });
    plan.items.push({ resource: image, status: status as Record<string, unknown>, source });
  }
  return plan;
}
