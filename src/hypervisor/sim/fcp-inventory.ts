/**
 * The simulated host's FCP devices (docs/smapi.md §3.3, System_WWPN_Query). The inventory is
 * configuration (device numbers, CHPIDs, WWPNs, offline devices); who uses a device is read from
 * the directory (DEDICATE statements) and the running guests, so it can never go stale.
 */
import { normalizeVdev } from '../directory/statements.js';
import type { ResolvedSimConfig } from './config.js';
import type { SimState } from './state.js';

export interface SimFcpConfig {
  /** first and last device number of the range, 4 hex digits each */
  from: string;
  to: string;
  /** channel path id, 2 hex digits */
  chpid: string;
  /** physical channel id of the CHPID, 4 hex digits (what CP's QUERY CHPID xx PCHID answers); none: not associated */
  pchid?: string;
  /** device numbers of the range that are offline */
  offline?: string[];
}

/** Two paths of 32 devices each: 1A00-1A1F on CHPID 27 (PCHID 02E4) and 1B00-1B1F on CHPID 28 (PCHID 0264). */
export const DEFAULT_FCPS: SimFcpConfig[] = [
  { from: '1A00', to: '1A1F', chpid: '27', pchid: '02E4' },
  { from: '1B00', to: '1B1F', chpid: '28', pchid: '0264' },
];

export type SimFcpStatus = 'active' | 'free' | 'offline';

export interface SimFcp {
  fcp: string;
  chpid: string;
  /** NPIV WWPN of the subchannel, 16 hex digits */
  npivWwpn: string;
  /** physical WWPN of the channel, 16 hex digits */
  physWwpn: string;
  status: SimFcpStatus;
  /** the logged-on guest the device is attached to */
  owner?: string;
}

const WWPN_PREFIX = 'C05076DE3300';

function hex4(n: number): string {
  return n.toString(16).toUpperCase().padStart(4, '0');
}

/** Every configured device with its fixed attributes (status free, no owner), in device order. */
export function fcpDevices(cfg: Pick<ResolvedSimConfig, 'fcps'>): SimFcp[] {
  const out: SimFcp[] = [];
  for (const range of cfg.fcps ?? DEFAULT_FCPS) {
    const offline = new Set((range.offline ?? []).map((d) => normalizeVdev(d)));
    const chpid = range.chpid.toUpperCase().padStart(2, '0');
    for (let n = parseInt(range.from, 16); n <= parseInt(range.to, 16); n++) {
      const fcp = hex4(n);
      out.push({
        fcp,
        chpid,
        npivWwpn: `${WWPN_PREFIX}${fcp}`,
        physWwpn: `${WWPN_PREFIX}00${chpid}`,
        status: offline.has(fcp) ? 'offline' : 'free',
      });
    }
  }
  return out.sort((a, b) => a.fcp.localeCompare(b.fcp));
}

/**
 * The physical channel of a CHPID, as CP's `QUERY CHPID xx PCHID` reports it (feilong reads PCHIDs this
 * way, or with lschp, since SMAPI's System_WWPN_Query has none); undefined when none is associated.
 */
export function pchidOf(cfg: Pick<ResolvedSimConfig, 'fcps'>, chpid: string): string | undefined {
  const want = chpid.toUpperCase().padStart(2, '0');
  return (cfg.fcps ?? DEFAULT_FCPS).find((r) => r.chpid.toUpperCase().padStart(2, '0') === want && r.pchid)?.pchid?.toUpperCase();
}

/** Real device → logged-on guest that has it attached. */
export function attachedDevices(state: SimState): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of state.running.values()) {
    for (const rdev of r.dedicates.values()) {
      const d = normalizeVdev(rdev);
      if (d) out.set(d, r.userid);
    }
  }
  return out;
}

/** The inventory as System_WWPN_Query reports it now: active = attached to a logged-on guest. */
export function describeFcps(state: SimState, cfg: Pick<ResolvedSimConfig, 'fcps'>): SimFcp[] {
  const attached = attachedDevices(state);
  return fcpDevices(cfg).map((d) => {
    const owner = attached.get(d.fcp);
    if (d.status === 'offline' || !owner) return d;
    return { ...d, status: 'active', owner };
  });
}
