import type { FcpDevice, FcpOps, FcpState } from '../fcp-port.js';
import type { CallOptions } from '../port.js';
import type { SmapiCall } from './call.js';
import type { WwpnInfo } from '../smapi/functions-device.js';

const STATES: Record<string, FcpState> = { '1': 'active', '2': 'free', '3': 'offline' };

/** rc/rs that mean "already as asked" for the dedicate family (docs/smapi.md §5.4, §6.2). */
const DEDICATED_DM = [404, 4] as const;
const ATTACHED = [204, 4] as const;
const NOT_DEDICATED_DM = [404, 8] as const;
const NOT_ATTACHED = [204, 8] as const;
const NOT_LOGGED_ON = [200, 12] as const;
/** undedicating from a guest that no longer exists leaves nothing to undo */
const NO_GUEST = [200, 4] as const;
const NO_ENTRY = [400, 4] as const;

function toDevice(e: WwpnInfo): FcpDevice {
  const owner = e.owner && e.owner.toUpperCase() !== 'NONE' ? e.owner.toUpperCase() : undefined;
  return {
    fcp: e.fcp_dev_id.toLowerCase(),
    wwpnNpiv: e.npiv_wwpn.toLowerCase(),
    wwpnPhy: e.perm_wwpn.toLowerCase(),
    chpid: e.chpid.toUpperCase(),
    state: STATES[e.dev_status] ?? 'offline',
    ...(owner ? { owner } : {}),
  };
}

/**
 * FcpOps over SMAPI. Undedicate of a guest that is gone (200/4, 400/4) is success: nothing is left to undo.
 * Dedicate writes the directory (Image_Device_Dedicate_DM) and attaches to the
 * running guest (Image_Device_Dedicate, skipped when logged off) as feilong's `changevm dedicate`
 * does; the vdev defaults to the device number. `target` is the userid host-wide queries name.
 */
export function createSmapiFcpOps(smapi: SmapiCall, target = 'MAINT'): FcpOps {
  const uid = (u: string) => u.toUpperCase();
  const dev = (d: string) => d.toUpperCase().padStart(4, '0');
  return {
    async queryFcps(opts?: CallOptions) {
      const res = await smapi('System_WWPN_Query', target, { owner: 'YES' }, [[4, 28]], opts);
      return (res.output.wwpn_array ?? []).map(toDevice);
    },
    async dedicate(userid, fcp, opts = {}) {
      const params = { image_device_number: dev(opts.vdev ?? fcp), real_device_number: dev(fcp), readonly: opts.readonly ? 1 : 0 };
      await smapi('Image_Device_Dedicate_DM', uid(userid), params, [DEDICATED_DM], opts);
      await smapi('Image_Device_Dedicate', uid(userid), params, [ATTACHED, NOT_LOGGED_ON], opts);
    },
    async undedicate(userid, fcp, opts = {}) {
      const params = { image_device_number: dev(opts.vdev ?? fcp) };
      await smapi('Image_Device_Undedicate', uid(userid), params, [NOT_ATTACHED, NOT_LOGGED_ON, NO_GUEST], opts);
      await smapi('Image_Device_Undedicate_DM', uid(userid), params, [NOT_DEDICATED_DM, NO_ENTRY], opts);
    },
  };
}
