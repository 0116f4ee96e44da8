/** Virtual NIC functions: directory (NICDEF) and active configuration variants, and the query. */
import { deviceRange, normalizeVdev, parseNicdefs, tokensOf } from '../../directory/directory.js';
import type { NicDefinition } from '../../directory/directory.js';
import { spec } from '../context.js';
import type { HandlerSpec } from '../context.js';
import { entryForUpdate, occupiedDevices } from '../directory-store.js';
import { SimFault, Syntax, syntaxFault } from '../fault.js';
import type { Params } from '../params.js';
import { activeDevices } from '../power.js';
import { appendConsole } from '../spool.js';
import { MAC_PREFIX, nextMacId } from '../state.js';
import type { DirEntry } from '../state.js';
import { requireRunning } from './power.js';

const ADAPTER_TYPES = new Set(['QDIO', 'HIPERSOCKETS', 'IEDN', 'INMN']);

function readAdapter(p: Params): { vdev: string; type: string; devices: number; chpid: string } {
  const vdev = p.vdev('image_device_number', 2);
  const type = (p.str('adapter_type', 3, { max: 12 }) || 'QDIO').toUpperCase();
  if (!ADAPTER_TYPES.has(type)) throw syntaxFault(p.fn, 3, Syntax.unrecognized, `adapter_type ${type}`);
  const devicesText = p.str('devices', 4, { max: 4 }) || '3';
  if (!/^\d+$/.test(devicesText)) throw syntaxFault(p.fn, 4, Syntax.notDecimal, 'devices must be decimal');
  const devices = Number(devicesText);
  if (devices < 3 || devices > 3072) throw syntaxFault(p.fn, 4, devices < 3 ? Syntax.belowMin : Syntax.aboveMax, 'devices');
  const chpid = p.str('channel_path_id', 5, { max: 2 }).toUpperCase();
  return { vdev, type, devices, chpid };
}

/** One merged NICDEF statement (DirMaint merges the lines of one vdev). */
function renderNicdef(n: NicDefinition): string {
  const parts = ['NICDEF', n.vdev, 'TYPE', n.type];
  if (n.vswitch) parts.push('LAN', n.lanOwner ?? 'SYSTEM', n.vswitch);
  if (n.devices !== 3) parts.push('DEVICES', String(n.devices));
  if (n.chpid) parts.push('CHPID', n.chpid);
  if (n.macId) parts.push('MACID', n.macId);
  if (n.vlan !== undefined) parts.push('VLAN', String(n.vlan));
  if (n.portType) parts.push('PORTTYPE', n.portType);
  return parts.join(' ');
}

/** Replaces every NICDEF line of the vdev with one statement (or none) at the first one's place. */
function rewriteNicdef(entry: DirEntry, vdev: string, nic: NicDefinition | undefined): void {
  const isThis = (s: string) => {
    const t = tokensOf(s);
    return t[0] === 'NICDEF' && normalizeVdev(t[1] ?? '') === vdev;
  };
  const first = entry.statements.findIndex(isThis);
  const rest = entry.statements.filter((s) => !isThis(s));
  if (nic) rest.splice(first < 0 ? rest.length : first, 0, renderNicdef(nic));
  entry.statements = rest;
}

function requireNicdef(fn: string, entry: DirEntry, vdev: string): NicDefinition {
  const nic = parseNicdefs(entry.statements).get(vdev);
  if (!nic) throw new SimFault(fn, 404, 8, `NIC ${vdev} not defined`);
  return nic;
}

export const nicHandlers: Record<string, HandlerSpec> = {
  /** NICDEF vdev TYPE t [DEVICES n] [CHPID c] [MACID m]; any occupied device of the range → 404/4. */
  Virtual_Network_Adapter_Create_Extended_DM: spec((ctx, target, p) => {
    const a = readAdapter(p);
    const macId = p.str('mac_id', 6, { max: 6 }).toUpperCase();
    if (macId && !/^[0-9A-F]{6}$/.test(macId)) throw syntaxFault(p.fn, 6, Syntax.notHex, 'mac_id must be 6 hex digits');
    const entry = entryForUpdate(p.fn, ctx.state, target, a.vdev);
    const used = occupiedDevices(entry.statements);
    const range = deviceRange(a.vdev, a.devices);
    if (range.length < a.devices || range.some((d) => used.has(d))) throw new SimFault(p.fn, 404, 4, `device ${a.vdev} in use`);
    const nic: NicDefinition = { vdev: a.vdev, type: a.type, devices: a.devices, ...(a.chpid ? { chpid: a.chpid } : {}), ...(macId ? { macId } : {}) };
    entry.statements.push(renderNicdef(nic));
  }, true),

  Virtual_Network_Adapter_Delete_DM: spec((ctx, target, p) => {
    const vdev = p.vdev('image_device_number', 2);
    const entry = entryForUpdate(p.fn, ctx.state, target, vdev);
    requireNicdef(p.fn, entry, vdev);
    rewriteNicdef(entry, vdev, undefined);
  }, true),

  /** Adds LAN SYSTEM <switch> to the NICDEF; the switch is checked at logon, as CP does. */
  Virtual_Network_Adapter_Connect_Vswitch_DM: spec((ctx, target, p) => {
    const vdev = p.vdev('image_device_number', 2);
    const sw = p.str('switch_name', 3, { min: 1, max: 8 }).toUpperCase();
    const entry = entryForUpdate(p.fn, ctx.state, target, vdev);
    const nic = requireNicdef(p.fn, entry, vdev);
    rewriteNicdef(entry, vdev, { ...nic, lanOwner: 'SYSTEM', vswitch: sw });
  }, true),

  /** Not coupled in the directory → 212/32. */
  Virtual_Network_Adapter_Disconnect_DM: spec((ctx, target, p) => {
    const vdev = p.vdev('image_device_number', 2);
    const entry = entryForUpdate(p.fn, ctx.state, target, vdev);
    const nic = requireNicdef(p.fn, entry, vdev);
    if (!nic.vswitch) throw new SimFault(p.fn, 212, 32, `NIC ${vdev} is not coupled`);
    const { vswitch: _sw, lanOwner: _owner, vlan: _vlan, portType: _pt, ...rest } = nic;
    rewriteNicdef(entry, vdev, rest);
  }, true),

  Virtual_Network_Adapter_Create_Extended: spec((ctx, target, p) => {
    const a = readAdapter(p);
    const r = requireRunning(ctx, p.fn, target);
    const used = activeDevices(r);
    const range = deviceRange(a.vdev, a.devices);
    if (range.length < a.devices || range.some((d) => used.has(d))) throw new SimFault(p.fn, 204, 4, `device ${a.vdev} in use`);
    r.nics.set(a.vdev, { vdev: a.vdev, devices: a.devices, type: a.type, mac: MAC_PREFIX + nextMacId(ctx.state) });
    appendConsole(ctx, target, `NIC ${a.vdev} IS CREATED; DEVICES ${range[0]}-${range[range.length - 1]} DEFINED`);
  }, true),

  Virtual_Network_Adapter_Delete: spec((ctx, target, p) => {
    const vdev = p.vdev('image_device_number', 2);
    const r = requireRunning(ctx, p.fn, target);
    if (!r.nics.delete(vdev)) throw new SimFault(p.fn, 204, 8, `NIC ${vdev} does not exist`);
    appendConsole(ctx, target, `NIC ${vdev} DETACHED`);
  }, true),

  /** COUPLE: 204/8 no NIC, 204/20 coupled, 212/40 no switch, 212/8 not granted, 212/28 not QDIO. */
  Virtual_Network_Adapter_Connect_Vswitch: spec((ctx, target, p) => {
    const vdev = p.vdev('image_device_number', 2);
    const sw = p.str('switch_name', 3, { min: 1, max: 8 }).toUpperCase();
    const r = requireRunning(ctx, p.fn, target);
    const nic = r.nics.get(vdev);
    if (!nic) throw new SimFault(p.fn, 204, 8, `NIC ${vdev} does not exist`);
    if (nic.vswitch) throw new SimFault(p.fn, 204, 20, `NIC ${vdev} is already connected`);
    const vsw = ctx.state.vswitches.get(sw);
    if (!vsw) throw new SimFault(p.fn, 212, 40, `vswitch ${sw} does not exist`);
    if (nic.type !== 'QDIO') throw new SimFault(p.fn, 212, 28, `NIC ${vdev} is not QDIO`);
    if (!vsw.grants.has(target)) throw new SimFault(p.fn, 212, 8, `${target} is not authorized on ${sw}`);
    nic.vswitch = sw;
    appendConsole(ctx, target, `NIC ${vdev} IS CONNECTED TO VSWITCH SYSTEM ${sw}`);
  }, true),

  Virtual_Network_Adapter_Disconnect: spec((ctx, target, p) => {
    const vdev = p.vdev('image_device_number', 2);
    const r = requireRunning(ctx, p.fn, target);
    const nic = r.nics.get(vdev);
    if (!nic) throw new SimFault(p.fn, 204, 8, `NIC ${vdev} does not exist`);
    if (!nic.vswitch) throw new SimFault(p.fn, 204, 48, `NIC ${vdev} is already disconnected`);
    delete nic.vswitch;
    appendConsole(ctx, target, `NIC ${vdev} IS DISCONNECTED`);
  }, true),

  /** The running guest's adapters ('*' or one vdev); adapter_status 01 coupled, 00 not [sim choice]. */
  Virtual_Network_Adapter_Query_Extended: spec((ctx, target, p) => {
    const which = (p.str('image_device_number', 2, { max: 4 }) || '*').toUpperCase();
    const r = requireRunning(ctx, p.fn, target);
    const vdevs = which === '*' ? [...r.nics.keys()].sort() : [normalizeVdev(which) ?? which];
    const data = vdevs.map((vdev) => {
      const n = r.nics.get(vdev);
      if (!n) throw new SimFault(p.fn, 204, 8, `NIC ${vdev} does not exist`);
      return {
        adapter_address: n.vdev,
        port_type: '0',
        extended_port_status: '00',
        adapter_type: n.type === 'QDIO' ? '2' : '1',
        network_device_count: String(n.devices),
        adapter_status: n.vswitch ? '01' : '00',
        lan_owner: n.vswitch ? 'SYSTEM' : null,
        lan_name: n.vswitch ?? null,
        router_status: null,
        device_options: null,
        mac_addresses: [
          { mac_address: n.mac, mac_address_type: 'PRIMARY', mac_status: n.vswitch ? '01' : '00', mac_ip_version: null, mac_ip_address: null },
        ],
      };
    });
    return { output: { virtual_network_adapter_data: data } };
  }, false),
};
