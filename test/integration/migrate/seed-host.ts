/**
 * A simulated z/VM host in the state the sample feilong databases describe: what z/VM itself held
 * when feilong wrote them. Built from the databases' rows (not from our migration): every managed
 * guest that is still on the host, its NICs coupled as the switch table says, the FCP inventory of
 * the fcp table (CHPIDs, offline 1e00, 1d03 gone), and each active device dedicated to its running owner.
 */
import { join } from 'node:path';
import { sqliteDriver } from '../../../src/durable/index.js';
import { FEILONG_DATABASES } from '../../fixtures/paths.js';
import { createInProcessCaller } from '../../../src/hypervisor/smapi/in-process-caller.js';
import { createSimHost, type SimConfig } from '../../../src/hypervisor/sim/index.js';
import { createSmapiHypervisor } from '../../../src/hypervisor/zvm/hypervisor.js';

export const SAMPLE_DB_DIR = FEILONG_DATABASES;

type Row = Record<string, unknown>;
export function sampleRows(file: string, sql: string): Row[] {
  const db = new (sqliteDriver().DatabaseSync)(join(SAMPLE_DB_DIR, file), { readOnly: true });
  try {
    return db.prepare(sql).all() as Row[];
  } finally {
    db.close();
  }
}

/**
 * z/VM's FCP inventory as the fcp table mirrors it: the z/VM-reported rows (1d03 is 'notfound': gone),
 * each CHPID with the PCHID CP reports for it (the table's pchid column).
 */
export function sampleFcpConfig(): Pick<SimConfig, 'fcps'> {
  const rows = sampleRows('sdk_fcp.sqlite', "SELECT fcp_id, chpid, pchid, state FROM fcp WHERE state <> 'notfound' ORDER BY fcp_id");
  return {
    fcps: rows.map((r) => ({
      from: String(r.fcp_id), to: String(r.fcp_id), chpid: String(r.chpid).toUpperCase(), pchid: String(r.pchid).toUpperCase(),
      ...(r.state === 'offline' ? { offline: [String(r.fcp_id)] } : {}),
    })),
  };
}

/** feilong hides relocated guests (comments `"migrated": 1`): they are not on this host. */
export function guestsOnHost(): string[] {
  return sampleRows('sdk_guest.sqlite', 'SELECT userid, comments FROM guests')
    .filter((r) => !/"migrated": 1/.test(String(r.comments ?? '')))
    .map((r) => String(r.userid).toUpperCase());
}

export async function seedSampleHost(statePath: string): Promise<void> {
  const sim = createSimHost({ ...sampleFcpConfig(), statePath });
  const hv = createSmapiHypervisor({ hostName: 'default', caller: createInProcessCaller({ handler: sim }) });
  const switches = sampleRows('sdk_network.sqlite', 'SELECT * FROM switch');
  for (const name of new Set(switches.map((s) => s.switch).filter((s): s is string => typeof s === 'string'))) {
    await hv.vswitches!.create({ name });
  }
  const active = sampleRows('sdk_fcp.sqlite', "SELECT fcp_id, owner FROM fcp WHERE state = 'active'");
  const owners = new Set(active.map((r) => String(r.owner).toUpperCase()));
  const guests = new Set([...guestsOnHost(), ...owners]);
  for (const userid of guests) {
    await hv.createGuest({ userid, vcpus: 2, maxCpus: 4, memory: '2G', maxMemory: '8G' });
    for (const s of switches.filter((r) => String(r.userid).toUpperCase() === userid && !r.comments)) {
      await hv.createNic(userid, { vdev: String(s.interface) });
      if (typeof s.switch === 'string') {
        await hv.vswitches!.grant(s.switch, userid, []);
        await hv.coupleNic(userid, String(s.interface), s.switch);
      }
    }
  }
  for (const userid of owners) await hv.start(userid);
  for (const r of active) await hv.fcp!.dedicate(String(r.owner).toUpperCase(), String(r.fcp_id));
  await sim.close();
}
