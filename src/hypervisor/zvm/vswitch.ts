import type { CallOptions } from '../port.js';
import type { SmapiCall } from './call.js';
import type { VswitchCreateExtendedParams, VswitchSetExtendedParams } from '../smapi/functions.js';
import { toVswitchDetails } from './vswitch-details.js';
import type { VswitchDefinition, VswitchOps } from '../vswitch-port.js';

/** rc/rs pairs the vswitch functions answer for "already so" (docs/smapi.md §5.4). */
const NOT_FOUND = [212, 40] as const;
const ALREADY_GRANTED = [212, 44] as const;

/**
 * Create parameters the way feilong sends them (docs/rest-interface.md §3.10): controller only when not
 * '*', routing only for IP switches, port type / GVRP / native VLAN only for VLAN-aware switches.
 */
export function computeCreateParams(def: VswitchDefinition): VswitchCreateExtendedParams {
  const vid = (def.vid ?? 'UNAWARE').toUpperCase();
  const networkType = def.networkType ?? 'ETHERNET';
  const params: VswitchCreateExtendedParams = { switch_name: def.name.toUpperCase() };
  if (def.rdev && def.rdev.length > 0) params.real_device_address = def.rdev.map((d) => d.toUpperCase()).join(' ');
  if (def.controller && def.controller !== '*') params.controller_name = def.controller.toUpperCase();
  params.connection_value = def.connection ?? 'CONNECT';
  params.queue_memory_limit = String(def.queueMem ?? 8);
  params.transport_type = networkType;
  params.vlan_id = vid;
  params.persist = def.persist === false ? 'NO' : 'YES';
  if (vid !== 'UNAWARE') {
    params.port_type = def.portType ?? 'ACCESS';
    params.gvrp_value = def.gvrp ?? 'GVRP';
    if (def.nativeVid !== undefined) params.native_vlanid = String(def.nativeVid);
  }
  if (networkType !== 'ETHERNET') params.routing_value = def.router ?? 'NONROUTER';
  return params;
}

/** VswitchOps over SMAPI; `target` is the userid the calls run as (feilong uses its own). */
export function createSmapiVswitchOps(smapi: SmapiCall, target = 'MAINT'): VswitchOps {
  return {
    async list(opts?: CallOptions) {
      const res = await smapi('Virtual_Network_Vswitch_Query', target, { switch_name: '*' }, [NOT_FOUND], opts);
      return (res.output.vswitch_array ?? []).map((s) => s.switch_name.trim().toUpperCase());
    },
    async describe(name, opts) {
      const res = await smapi('Virtual_Network_Vswitch_Query_Extended', target, { switch_name: name.toUpperCase() }, [NOT_FOUND], opts);
      const [info] = res.output.vswitch_array ?? [];
      return res.rc === 0 && info ? toVswitchDetails(info) : undefined;
    },
    async create(def, opts) {
      await smapi('Virtual_Network_Vswitch_Create_Extended', target, computeCreateParams(def), [], opts);
    },
    async delete(name, opts) {
      await smapi('Virtual_Network_Vswitch_Delete_Extended', target, { switch_name: name.toUpperCase(), persist: 'YES' }, [NOT_FOUND], opts);
    },
    async grant(name, userid, vlanIds, opts) {
      const params: VswitchSetExtendedParams = { switch_name: name.toUpperCase(), grant_userid: userid.toUpperCase(), persist: 'YES' };
      if (vlanIds.length > 0) params.user_vlan_id = vlanIds.join(' ');
      await smapi('Virtual_Network_Vswitch_Set_Extended', target, params, [ALREADY_GRANTED], opts);
    },
    async revoke(name, userid, opts) {
      await smapi('Virtual_Network_Vswitch_Set_Extended', target, { switch_name: name.toUpperCase(), revoke_userid: userid.toUpperCase(), persist: 'YES' }, [NOT_FOUND], opts);
    },
  };
}
