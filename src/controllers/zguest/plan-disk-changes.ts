import { fixedMessage, lifecycleOf, ZGUEST_FIELDS, type CreatedDisk } from '../../api/index.js';
import { normalizeVdev, type ResolvedDisk } from './definition.js';
import type { Problem } from './steps.js';

/** What a created disk was made with, as status recorded it, beside what the spec now resolves to. */
const RECORDED: Record<'size' | 'pool' | 'format' | 'boot', (d: CreatedDisk) => unknown> = {
  size: (d) => d.size,
  pool: (d) => d.diskPool.toUpperCase(),
  format: (d) => (d.isBootDisk ? 'none' : (d.format ?? 'ext4')),
  boot: (d) => d.isBootDisk === true,
};
const WANTED: Record<keyof typeof RECORDED, (d: ResolvedDisk) => unknown> = {
  size: (d) => d.size,
  pool: (d) => d.pool.toUpperCase(),
  format: (d) => d.format,
  boot: (d) => d.boot,
};

/**
 * Pure: the fixed fields of a disk (api/zguest-fields.ts) that the spec changed on a disk already made.
 * A list item has no identity at admission, so the refusal is here, naming the field; nothing is written.
 */
export function planDiskChanges(disks: ResolvedDisk[], recorded: CreatedDisk[] | undefined): Problem[] {
  const made = new Map((recorded ?? []).map((d) => [normalizeVdev(d.vdev), d]));
  const problems: Problem[] = [];
  disks.forEach((d, i) => {
    const was = made.get(d.vdev);
    if (!was) return;
    // a boot disk's format is none: a changed boot is reported alone
    const fields = RECORDED.boot(was) === WANTED.boot(d) ? (Object.keys(RECORDED) as (keyof typeof RECORDED)[]) : (['boot'] as const);
    for (const field of fields) {
      const path = `disks[].${field}`;
      if (lifecycleOf(ZGUEST_FIELDS, path)?.lifecycle !== 'fixed' || RECORDED[field](was) === WANTED[field](d)) continue;
      problems.push({ reason: 'InvalidDisks', severity: 'error', message: `${fixedMessage(`disks[${i}].${field}`)}: disk ${d.vdev} was made with ${String(RECORDED[field](was))}; give another vdev for another disk` });
    }
  });
  return problems;
}
