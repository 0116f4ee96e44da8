/**
 * Pure: what one planned call means for a reviewer — its parameters with passwords redacted, the
 * directory statements it adds or removes, and the CP command it amounts to.
 */
import { type PlannedCall, predictDirectory } from '../../hypervisor/index.js';

export interface DirectoryChange {
  added: string[];
  removed: string[];
}

export type DescribedCall = PlannedCall & { directory?: DirectoryChange; cp?: string; command?: string };

const REDACTED = '(redacted)';

/** Password parameters, and the password field of a USER statement, never leave the planner. */
export function redactCall(call: PlannedCall): PlannedCall {
  const params: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(call.params)) {
    if (/password/i.test(k) && v !== '') params[k] = REDACTED;
    else if (k === 'image_record_array' && Array.isArray(v)) params[k] = (v as string[]).map(redactUserLine);
    else params[k] = v;
  }
  return { ...call, params } as PlannedCall;
}

function redactUserLine(line: string): string {
  const m = /^(\s*(?:USER|IDENTITY)\s+\S+\s+)(\S+)(.*)$/i.exec(line);
  return m ? `${m[1]}${REDACTED}${m[3]}` : line;
}

const norm = (line: string) => line.trim().replace(/\s+/g, ' ').toUpperCase();

function diff(before: string[], after: string[]): DirectoryChange {
  const a = new Set(after.map(norm));
  const b = new Set(before.map(norm));
  return { added: after.filter((l) => !b.has(norm(l))).map((l) => l.trim()), removed: before.filter((l) => !a.has(norm(l))).map((l) => l.trim()) };
}

/** 'COMMAND_DEFINE_CPU=CPUADDR=01 TYPE=IFL' → 'COMMAND DEFINE CPU 01 TYPE IFL' */
function keywordStatement(kw: string): string {
  const [head, ...rest] = kw.split('=');
  return [head.replace(/_/g, ' '), rest.join('=').replace(/CPUADDR=/, '').replace(/=/g, ' ')].join(' ').trim();
}

const statementsOf = (lines: string[] | undefined, re: RegExp) => (lines ?? []).filter((l) => re.test(l.trim())).map((l) => l.trim());

/**
 * Describes one call given the directory before it; answers the description and the directory after it
 * (undefined when the call leaves no entry, or when a change cannot be predicted line for line).
 */
export function describeCall(raw: PlannedCall, before: string[] | undefined): { call: DescribedCall; after: string[] | undefined } {
  if (raw.kind === 'mgmt') return { call: { ...raw, command: mgmtCommand(raw) }, after: before };
  const call = redactCall(raw) as typeof raw;
  const p = call.params as Record<string, unknown>;
  const vdev = String(p.image_disk_number ?? p.image_device_number ?? '');
  const after = predictDirectory(raw.function, raw.params, before);
  const out = (d: DirectoryChange | undefined, cp?: string) => {
    const directory = d && { added: d.added.map(redactUserLine), removed: d.removed.map(redactUserLine) };
    return { call: { ...call, ...(directory ? { directory } : {}), ...(cp ? { cp } : {}) }, after };
  };
  switch (call.function) {
    case 'Image_Create_DM':
      return out({ added: (p.image_record_array as string[]).map((l) => l.trim()), removed: [] });
    case 'Image_Replace_DM':
      return out(diff(before ?? [], raw.params.image_record_array as string[]));
    case 'Image_Delete_DM':
      return out({ added: [], removed: (before ?? []).map((l) => l.trim()) });
    // with the entry known, the statements it gains and loses (a new SHARE replaces the old one)
    case 'Image_Definition_Update_DM':
      return out(before && after ? diff(before, after) : { added: (p.definition_update_directory_keyword_parameter_list as string[]).map(keywordStatement), removed: [] });
    case 'Image_Definition_Delete_DM':
      return out(before && after ? diff(before, after) : { added: [], removed: (p.definition_delete_directory_keyword_parameter_list as string[]).map(keywordStatement) });
    case 'Image_Disk_Create_DM':
      return out({ added: [`MDISK ${vdev} ${String(p.image_disk_device_type)} AUTOG ${String(p.image_disk_size)} ${String(p.allocation_area_name_or_volser)} ${String(p.image_disk_mode)}`], removed: [] });
    case 'Image_Disk_Delete_DM':
      return out({ added: [], removed: statementsOf(before, new RegExp(`^MDISK\\s+0*${vdev.replace(/^0+/, '')}\\s`, 'i')) });
    case 'Virtual_Network_Adapter_Create_Extended_DM':
      return out({ added: [`NICDEF ${vdev} TYPE QDIO${p.mac_id ? ` MACID ${String(p.mac_id)}` : ''}`], removed: [] });
    case 'Virtual_Network_Adapter_Delete_DM':
      return out({ added: [], removed: statementsOf(before, new RegExp(`^NICDEF\\s+0*${vdev.replace(/^0+/, '')}\\s`, 'i')) });
    case 'Virtual_Network_Adapter_Connect_Vswitch_DM':
      return out({ added: [`NICDEF ${vdev} LAN SYSTEM ${String(p.switch_name)}`], removed: [] });
    case 'Image_Device_Dedicate_DM':
      return out({ added: [`DEDICATE ${vdev} ${String(p.real_device_number)}${p.readonly === 1 ? ' R/O' : ''}`], removed: [] });
    case 'Image_Device_Undedicate_DM':
      return out({ added: [], removed: before ? statementsOf(before, new RegExp(`^DEDICATE\\s+0*${vdev.replace(/^0+/, '')}\\s`, 'i')) : [`DEDICATE ${vdev}`] });
    case 'Virtual_Network_Adapter_Disconnect_DM':
      return out({ added: [], removed: statementsOf(before, new RegExp(`^NICDEF\\s+0*${vdev.replace(/^0+/, '')}\\s+LAN`, 'i')) });
    default:
      return out(undefined, cpCommand(call.function, call.target, p));
  }
}

/** The CP command a SMAPI function issues on the guest's behalf, for the functions that issue one. */
function cpCommand(fn: string, userid: string, p: Record<string, unknown>): string | undefined {
  switch (fn) {
    case 'Image_Activate':
      return `XAUTOLOG ${userid}`;
    case 'Image_Deactivate':
      return p.force_time === 'IMMED' ? `FORCE ${userid} IMMED` : `SIGNAL SHUTDOWN ${userid}`;
    case 'Image_CPU_Define':
      return `SEND CP ${userid} DEFINE CPU ${String(p.cpu_address)} TYPE IFL`;
    case 'Image_Pause':
      return p.action === 'pause' ? `STOP (guest ${userid} held)` : `BEGIN (guest ${userid} resumed)`;
    case 'Image_Device_Dedicate':
      return `ATTACH ${String(p.real_device_number)} TO ${userid} AS ${String(p.image_device_number)}`;
    case 'Image_Device_Undedicate':
      return `DETACH ${String(p.image_device_number)} FROM ${userid}`;
    case 'Virtual_Network_Vswitch_Create_Extended':
      return `DEFINE VSWITCH ${String(p.switch_name)}${p.real_device_address ? ` RDEV ${String(p.real_device_address)}` : ''}${p.persist === 'YES' ? ' (and in the system configuration)' : ''}`;
    case 'Virtual_Network_Vswitch_Delete_Extended':
      return `DETACH VSWITCH ${String(p.switch_name)}${p.persist === 'YES' ? ' (and from the system configuration)' : ''}`;
    case 'Virtual_Network_Vswitch_Set_Extended':
      if (p.grant_userid) return `SET VSWITCH ${String(p.switch_name)} GRANT ${String(p.grant_userid)}${p.user_vlan_id ? ` VLAN ${String(p.user_vlan_id)}` : ''}`;
      return p.revoke_userid ? `SET VSWITCH ${String(p.switch_name)} REVOKE ${String(p.revoke_userid)}` : undefined;
    default:
      return undefined;
  }
}

/** What the management guest runs for an operation (mgmt/image-deploy.ts, mgmt/grow-root.ts). */
function mgmtCommand(call: Extract<PlannedCall, { kind: 'mgmt' }>): string {
  const p = call.params;
  switch (call.op) {
    case 'deployImage':
      return `unpackdiskimage ${call.target} ${String(p.vdev)} <image ${String(p.image)}>${p.transportFiles ? `; punch ${String(p.transportFiles)} to ${call.target}'s reader` : ''}`;
    case 'growRootVolume':
      return `vmur punch -r -u ${call.target} <grow-root script for ${String(p.osVersion)}>`;
    case 'forgetGuest':
      return `remove the console log of ${call.target}`;
    default:
      return `vmcp ${String(p.command ?? '')}`;
  }
}
