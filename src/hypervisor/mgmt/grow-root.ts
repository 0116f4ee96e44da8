/**
 * grow_root_volume (docs/rest-interface.md §1.4): a script that grows the root partition and its file system to
 * the size of the disk is punched to the guest's reader, where the guest's configuration service runs it at
 * its next start, as the reference does. The script is ours: it finds the root device at run time, so one
 * script serves every supported distribution.
 */
import { GuestImageRs, ImageError, type MgmtCallOptions } from '../image-port.js';
import type { MgmtContext } from './context.js';
import { checkOsVersion } from './paths.js';
import { punchToReader } from './punch.js';

/** The reader file's name (the guest's configuration service looks for it). */
export const GROW_ROOT_SCRIPT_NAME = 'gpartvol.sh';

/** Grows the partition holding / and then its file system (ext2/3/4 or xfs). */
export function growRootScript(osVersion: string): string {
  return [
    '#!/bin/bash',
    `# grow the root partition and file system to the disk size (os ${osVersion})`,
    'set -e',
    'part=$(findmnt -n -o SOURCE /)',
    'disk=/dev/$(lsblk -n -o PKNAME "$part" | head -n1)',
    'num=$(cat /sys/class/block/$(basename "$part")/partition)',
    'growpart "$disk" "$num" || true',
    'case $(findmnt -n -o FSTYPE /) in',
    '  xfs) xfs_growfs / ;;',
    '  ext2|ext3|ext4) resize2fs "$part" ;;',
    'esac',
    '',
  ].join('\n');
}

export async function punchGrowRootScript(ctx: MgmtContext, userid: string, osVersion: string, opts: MgmtCallOptions = {}): Promise<void> {
  const os = checkOsVersion(osVersion);
  const failed = (detail: string) =>
    new ImageError('guest_grow_root_volume', GuestImageRs.transportFailed, `Failed to punch the grow root volume script to ${userid.toUpperCase()}: ${detail}`, { module: 'guest' });
  await punchToReader(ctx, userid, { name: GROW_ROOT_SCRIPT_NAME, bytes: growRootScript(os) }, failed, opts);
}
