/**
 * Physical channel ids (PCHIDs) of FCP channel paths. SMAPI's System_WWPN_Query reports CHPIDs only;
 * feilong asks CP on its own guest (`vmcp query chpid xx pchid`, or Linux's lschp), so we ask the
 * host's management guest the same way.
 */
import type { Logger } from '../../log.js';
import type { MgmtOps } from '../image-port.js';
import type { CallOptions } from '../port.js';

const ASSOCIATED = /is associated with physical channel\s+([0-9A-Fa-f]{1,4})\s*$/m;

/** "Path 27 is associated with physical channel 02E4" → "02E4"; "… is not associated …" or an error → "". */
export function parsePchidResponse(output: string): string {
  return ASSOCIATED.exec(output)?.[1]?.toUpperCase() ?? '';
}

/**
 * CHPID (upper case) → PCHID for each CHPID; a CHPID CP associates with none, or refuses to answer
 * for (e.g. the guest lacks the privilege), is absent. An unreachable management guest costs the
 * PCHIDs of this sync only (logged), never the FCP sync itself.
 */
export async function queryPchids(mgmt: MgmtOps, chpids: Iterable<string>, log: Logger, opts?: CallOptions): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  try {
    for (const chpid of new Set([...chpids].map((c) => c.toUpperCase()).filter((c) => c !== ''))) {
      const res = await mgmt.vmcp(`query chpid ${chpid} pchid`, opts);
      const pchid = res.exitCode === 0 ? parsePchidResponse(res.output) : '';
      if (pchid) out.set(chpid, pchid);
      else log.debug({ chpid, output: res.output }, 'no PCHID for CHPID');
    }
  } catch (err) {
    log.warn({ err }, 'PCHIDs not readable from the management guest');
  }
  return out;
}
