import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SimHost } from '../../../../src/hypervisor/sim/index.js';
import { addDisk, call, createGuest, rcrs, records, smallHost } from './helpers.js';

/** The same call sequence, used to check persistence and determinism. */
async function scenario(host: SimHost): Promise<void> {
  await call(host, 'Virtual_Network_Vswitch_Create_Extended', 'MAINT', { switch_name: 'VSW1', real_device_address: '1000' });
  await call(host, 'Virtual_Network_Vswitch_Set_Extended', 'MAINT', { switch_name: 'VSW1', grant_userid: 'P1' });
  await createGuest(host, 'P1', 'NICDEF 1000 TYPE QDIO LAN SYSTEM VSW1');
  await createGuest(host, 'P2');
  await addDisk(host, 'P1', '100', 1000);
  await addDisk(host, 'P2', '100', 1500);
  await call(host, 'Image_Activate', 'P1');
  await call(host, 'Image_CPU_Define', 'P1', { cpu_address: '01', cpu_type: 2 });
  await call(host, 'Image_Pause', 'P1', { action: 'pause' });
  await call(host, 'Image_Lock_DM', 'P2', { device_address: '' });
}

describe('simulator persistence', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'zvm-sim-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('restores directory, extents, running guests, locks and vswitches from the state file', async () => {
    const statePath = join(dir, 'sim.json');
    const first = smallHost({ statePath });
    await scenario(first);
    await first.close();

    const second = smallHost({ statePath });
    expect(second.snapshot()).toEqual(first.snapshot());
    expect(await records(second, 'P1')).toContain('MDISK 0100 3390 1 1000 VOL001 MR');
    expect(second.queryUser('P1')).toBe('paused');
    expect(rcrs(await call(second, 'Image_Lock_DM', 'P2', { device_address: '' }))).toEqual([400, 12]);
    const q = await call(second, 'Virtual_Network_Vswitch_Query_Extended', 'MAINT', { switch_name: 'VSW1' });
    expect((q.output.vswitch_array as { connected_adapter_array: unknown[] }[])[0].connected_adapter_array).toHaveLength(1);
    // the freed/used extents survive: the next disk lands after both existing ones
    await createGuest(second, 'P3');
    await addDisk(second, 'P3', '100', 10);
    expect(await records(second, 'P3')).toContain('MDISK 0100 3390 2501 10 VOL001 MR');
    await second.close();
  });

  it('writes atomically: flush leaves the state file and no temporary file behind', async () => {
    const statePath = join(dir, 'sim.json');
    const host = smallHost({ statePath, persistDelayMs: 60_000 });
    await createGuest(host, 'A1');
    expect(existsSync(statePath)).toBe(false); // coalesced, not yet written
    await host.flush();
    expect(readdirSync(dir)).toEqual(['sim.json']);
    const saved = JSON.parse(readFileSync(statePath, 'utf8')) as { entries: { userid: string }[] };
    expect(saved.entries.map((e) => e.userid)).toEqual(['A1']);
    await host.close();
  });

  it('starts empty in memory without a state path', async () => {
    const host = smallHost();
    await createGuest(host, 'M1');
    await host.close();
    expect(smallHost().stats().guests).toBe(0);
  });

  it('is deterministic: the same calls produce the same state', async () => {
    const a = smallHost();
    const b = smallHost();
    await scenario(a);
    await scenario(b);
    expect(a.snapshot()).toEqual(b.snapshot());
    const perf = async (h: SimHost) => (await call(h, 'Image_Performance_Query', 'MAINT', { image_names: ['P1'] })).output;
    expect(await perf(a)).toEqual(await perf(b));
  });
});
