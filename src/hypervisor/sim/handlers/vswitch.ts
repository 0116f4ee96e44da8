/**
 * Virtual switches: create (212/36 exists; NOUPLINK with a real device or a router on an ETHERNET
 * switch → rc 24 conflict), set (grant with VLAN ids / revoke, a few attributes; 212/40 missing,
 * 212/44 already granted, 396/2846 VLAN ids on an unaware switch), delete (uncouples running
 * NICs), and both queries. Real devices, connection, GVRP and persist are kept as given.
 */
import { spec } from '../context.js';
import type { HandlerSpec, SimContext } from '../context.js';
import { SimFault, Syntax, syntaxFault } from '../fault.js';
import { checkUserid } from '../params.js';
import type { Params } from '../params.js';
import { MAC_PREFIX, nextMacId } from '../state.js';
import type { Vswitch } from '../state.js';
import { basicInfo, extendedInfo } from './vswitch-info.js';

function requireSwitch(ctx: SimContext, fn: string, name: string): Vswitch {
  const vsw = ctx.state.vswitches.get(name);
  if (!vsw) throw new SimFault(fn, 212, 40, `vswitch ${name} does not exist`);
  return vsw;
}

function parseVlan(fn: string, index: number, text: string): { aware: boolean; id: number } {
  const v = text.toUpperCase();
  if (v === '' || v === 'UNAWARE') return { aware: false, id: 0 };
  if (v === 'AWARE') return { aware: true, id: 1 };
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > 4094) throw syntaxFault(fn, index, Syntax.unrecognized, `vlan ${text}`);
  return { aware: true, id: Number(v) };
}

const CONNECTIONS = new Set(['CONNECT', 'DISCONNECT', 'NOUPLINK']);

function parseRdevs(fn: string, text: string): string[] {
  const t = text.toUpperCase().trim();
  if (t === '' || t === 'NONE') return [];
  const devices = t.split(/\s+/);
  if (devices.length > 3 || devices.some((d) => !/^[0-9A-F]{1,4}$/.test(d))) throw syntaxFault(fn, 3, Syntax.unrecognized, `real_device_address ${text}`);
  return devices.map((d) => d.padStart(4, '0'));
}

function createSwitch(ctx: SimContext, p: Params, name: string): Vswitch {
  const rdevs = parseRdevs(p.fn, p.str('real_device_address', 3));
  const transportType = (p.str('transport_type', 9) || 'ETHERNET').toUpperCase();
  const vlan = parseVlan(p.fn, 10, p.str('vlan_id', 10));
  const native = p.str('native_vlanid', 14);
  const connection = (p.str('connection_value', 6) || 'CONNECT').toUpperCase();
  if (!CONNECTIONS.has(connection)) throw syntaxFault(p.fn, 6, Syntax.unrecognized, `connection_value ${connection}`);
  if (connection === 'NOUPLINK' && rdevs.length > 0) throw syntaxFault(p.fn, 6, 23, 'NOUPLINK conflicts with real_device_address');
  if (transportType === 'ETHERNET' && p.str('routing_value', 8)) throw syntaxFault(p.fn, 8, 23, 'routing_value is not allowed for ETHERNET');
  const gvrp = (p.str('gvrp_value', 13) || 'GVRP').toUpperCase();
  return {
    name,
    transportType,
    portType: vlan.aware ? (p.str('port_type', 11) || 'ACCESS').toUpperCase() : 'NONE',
    queueMemoryLimit: p.str('queue_memory_limit', 7) || '8',
    routingValue: transportType === 'IP' ? (p.str('routing_value', 8) || 'NONROUTER').toUpperCase() : 'NA',
    vlanAware: vlan.aware,
    vlanId: vlan.id,
    nativeVlanId: vlan.aware ? Number(/^\d+$/.test(native) ? native : vlan.id) : 0,
    mac: MAC_PREFIX + nextMacId(ctx.state),
    realDevices: rdevs,
    connection,
    gvrp: vlan.aware ? gvrp : 'NOGVRP',
    persist: p.str('persist', 12).toUpperCase() !== 'NO',
    controllerName: (p.str('controller_name', 5) || '*').toUpperCase(),
    portName: p.str('port_name', 4).toUpperCase(),
    switchType: (p.str('vswitch_type', 15) || 'QDIO').toUpperCase(),
    ipTimeout: p.str('iptimeout', 16) || '5',
    portSelection: (p.str('port_selection', 17) || 'USERBASED').toUpperCase(),
    grants: new Map(),
  };
}

function grant(fn: string, vsw: Vswitch, userid: string, vlanText: string): void {
  const existing = vsw.grants.get(userid);
  const vlans = vlanText === '' ? [] : vlanText.split(/\s+/).map(Number);
  if (vlans.some((v) => !Number.isInteger(v) || v < 1 || v > 4094)) throw syntaxFault(fn, 3, Syntax.unrecognized, 'user_vlan_id');
  if (vlans.length > 0 && !vsw.vlanAware) throw new SimFault(fn, 396, 2846, `vswitch ${vsw.name} is VLAN unaware`);
  if (existing) {
    const added = vlans.filter((v) => !existing.vlans.includes(v));
    if (added.length === 0) throw new SimFault(fn, 212, 44, `${userid} is already authorized`);
    existing.vlans = [...existing.vlans, ...added].sort((a, b) => a - b);
    return;
  }
  vsw.grants.set(userid, { userid, vlans });
}

/** Attributes Set_Extended may change besides grants (others are accepted and ignored). */
function setAttributes(vsw: Vswitch, p: Params): void {
  const rdev = p.str('real_device_address', 5);
  if (rdev) vsw.realDevices = parseRdevs(p.fn, rdev);
  const connection = p.str('connection_value', 8).toUpperCase();
  if (CONNECTIONS.has(connection)) vsw.connection = connection;
  const portName = p.str('port_name', 6).toUpperCase();
  if (portName) vsw.portName = portName;
  const controller = p.str('controller_name', 7).toUpperCase();
  if (controller) vsw.controllerName = controller;
  const qml = p.str('queue_memory_limit', 9);
  if (qml) vsw.queueMemoryLimit = qml;
  const portType = p.str('port_type', 11).toUpperCase();
  if (portType && vsw.vlanAware) vsw.portType = portType;
  const ipTimeout = p.str('iptimeout', 20);
  if (ipTimeout) vsw.ipTimeout = ipTimeout;
}

export const vswitchHandlers: Record<string, HandlerSpec> = {
  Virtual_Network_Vswitch_Create_Extended: spec((ctx, _target, p) => {
    const name = p.str('switch_name', 2, { min: 1, max: 8 }).toUpperCase();
    if (ctx.state.vswitches.has(name)) throw new SimFault(p.fn, 212, 36, `vswitch ${name} already exists`);
    ctx.state.vswitches.set(name, createSwitch(ctx, p, name));
  }, true, 'any'),

  Virtual_Network_Vswitch_Set_Extended: spec((ctx, _target, p) => {
    const name = p.str('switch_name', 2, { min: 1, max: 8 }).toUpperCase();
    const grantUser = p.str('grant_userid', 3, { max: 8 });
    const revokeUser = p.str('revoke_userid', 4, { max: 8 });
    const vlanText = p.str('user_vlan_id', 3);
    const vsw = requireSwitch(ctx, p.fn, name);
    if (grantUser) grant(p.fn, vsw, checkUserid(p.fn, grantUser, 3), vlanText);
    if (revokeUser) vsw.grants.delete(checkUserid(p.fn, revokeUser, 4)); // revoking a stranger is a no-op
    setAttributes(vsw, p);
  }, true, 'any'),

  /** Running NICs coupled to the switch are uncoupled. */
  Virtual_Network_Vswitch_Delete_Extended: spec((ctx, _target, p) => {
    const name = p.str('switch_name', 2, { min: 1, max: 8 }).toUpperCase();
    requireSwitch(ctx, p.fn, name);
    ctx.state.vswitches.delete(name);
    for (const r of ctx.state.running.values()) {
      for (const nic of r.nics.values()) if (nic.vswitch === name) delete nic.vswitch;
    }
  }, true, 'any'),

  Virtual_Network_Vswitch_Query_Extended: spec((ctx, _target, p) => {
    const name = (p.str('switch_name', 2, { max: 8 }) || '*').toUpperCase();
    const vepa = p.str('vepa_status', 3).toUpperCase() === 'YES';
    const switches = name === '*' ? [...ctx.state.vswitches.values()] : [requireSwitch(ctx, p.fn, name)];
    if (switches.length === 0) throw new SimFault(p.fn, 212, 40, 'no vswitch defined');
    return { output: { vswitch_array: switches.map((s) => extendedInfo(ctx, s, vepa)) } };
  }, false, 'any'),

  Virtual_Network_Vswitch_Query: spec((ctx, _target, p) => {
    const name = (p.str('switch_name', 2, { max: 8 }) || '*').toUpperCase();
    const switches = name === '*' ? [...ctx.state.vswitches.values()] : [requireSwitch(ctx, p.fn, name)];
    if (switches.length === 0) throw new SimFault(p.fn, 212, 40, 'no vswitch defined');
    return { output: { vswitch_array: switches.map((s) => basicInfo(ctx, s)) } };
  }, false, 'any'),
};
