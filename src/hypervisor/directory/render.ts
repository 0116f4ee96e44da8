import { normalizeShare } from '../../api/zguest.js';
import type { GuestDefinition } from '../port.js';
import { formatMemoryMB, memoryToMB } from './units.js';

/** feilong's default share: RELATIVE 100 per virtual CPU (`user_default_share_unit`). */
const SHARE_UNIT = 100;


/** A virtual CPU's address in the directory and in SMAPI's CPU keywords: 0 → '00', 10 → '0A'. */
export function cpuAddress(i: number): string {
  return i.toString(16).toUpperCase().padStart(2, '0');
}

function stripHexPrefix(s: string): string {
  return s.replace(/^0x/i, '');
}

/** `IPL …` (and `LOADDEV DEVICE …` for boot from SCSI) statements. */
function iplStatements(def: GuestDefinition): string[] {
  if (!def.ipl) return [];
  const ld = def.loaddev;
  if (ld?.portname && ld.lun && ld.alterdev) {
    return ['IPL LOADDEV', `LOADDEV DEVICE ${def.ipl.device}`];
  }
  let ipl = `IPL ${def.ipl.device}`;
  if (def.ipl.param) ipl += ` PARM ${def.ipl.param}`;
  if (def.ipl.loadparm) ipl += ` LOADPARM ${def.ipl.loadparm}`;
  return [ipl];
}

function loaddevStatements(def: GuestDefinition): string[] {
  const ld = def.loaddev;
  if (!ld) return [];
  const out: string[] = [];
  if (ld.portname) out.push(`LOADDEV PORTNAME ${stripHexPrefix(ld.portname)}`);
  if (ld.lun) out.push(`LOADDEV LUN ${stripHexPrefix(ld.lun)}`);
  if (ld.alterdev) {
    for (const pair of ld.alterdev.split(',')) {
      const [dev, port] = pair.split(':').map((s) => s.trim());
      if (dev && port) out.push(`LOADDEV SCSI ALTERNATE ${dev} PORT ${stripHexPrefix(port)}`);
    }
  }
  return out;
}

/**
 * The directory entry feilong's guest_create writes, in its statement order
 * (docs/rest-interface.md §3.1). Upper case, single blanks, one statement per element.
 */
export function renderDirectory(def: GuestDefinition): string[] {
  const userid = def.userid.toUpperCase();
  const out = [`USER ${userid} LBYONLY ${formatMemoryMB(memoryToMB(def.memory))} ${def.maxMemory.toUpperCase()} G`];
  if (def.profile) out.push(`INCLUDE ${def.profile.toUpperCase()}`);
  out.push(`MACHINE ESA ${def.maxCpus}`);
  if (def.account) out.push(`ACCOUNT ${def.account.toUpperCase()}`);
  out.push('COMMAND SET VCONFIG MODE LINUX');
  for (let i = 0; i < def.vcpus; i++) out.push(`COMMAND DEFINE CPU ${cpuAddress(i)} TYPE IFL`);
  if (def.cpuPool) out.push(`COMMAND SCHEDULE * WITHIN POOL ${def.cpuPool.toUpperCase()}`);
  out.push(`SHARE ${def.share ? normalizeShare(def.share) : `RELATIVE ${SHARE_UNIT * def.vcpus}`}`);
  if (def.relocationDomain) out.push(`COMMAND SET VMRELOCATE * DOMAIN ${def.relocationDomain.toUpperCase()}`);
  for (const pcif of def.pciFunctions ?? []) {
    const [fid, vdev] = pcif.toUpperCase().split(':');
    out.push(`COMMAND ATTACH PCIF ${fid} * AS ${vdev}`);
  }
  out.push(...iplStatements(def));
  out.push('COMMAND DEF STOR INITIAL STANDBY REMAINDER');
  out.push(...loaddevStatements(def));
  for (const vdev of def.dedicate ?? []) out.push(`DEDICATE ${vdev.toUpperCase()} ${vdev.toUpperCase()}`);
  for (const c of def.comments ?? []) out.push(`* ${c.toUpperCase()}`);
  return out;
}
