import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SimHost } from '../../../../src/hypervisor/sim/index.js';
import { addDisk, call, createGuest, rcrs, records, smallHost, persistenceScenario, tempDirPerTest } from './helpers.js';

describe('simulator persistence', () => {
  const tmp = tempDirPerTest('zvm-sim-');

  it('restores directory, extents, running guests, locks and vswitches from the state file', async () => {
    const statePath = join(tmp.path, 'sim.json');
    const first = smallHost({ statePath });
    await persistenceScenario(first);
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

  it('has every answered change on disk when the answer arrives, with no temporary file behind', async () => {
    const statePath = join(tmp.path, 'sim.json');
    const host = smallHost({ statePath });
    await createGuest(host, 'A1');
    // no close, no flush: a crash right after the answer would find the guest in the file
    expect(readdirSync(tmp.path)).toEqual(['sim.json']);
    const saved = JSON.parse(readFileSync(statePath, 'utf8')) as { entries: { userid: string }[] };
    expect(saved.entries.map((e) => e.userid)).toEqual(['A1']);
    await host.close();
  });

  it('saves a burst of concurrent changes before each of them is answered (group commit)', async () => {
    const statePath = join(tmp.path, 'sim.json');
    const host = smallHost({ statePath });
    const userids = Array.from({ length: 40 }, (_, i) => `G${String(i).padStart(3, '0')}`);
    const onDisk = await Promise.all(userids.map(async (u) => {
      await createGuest(host, u);
      const saved = JSON.parse(readFileSync(statePath, 'utf8')) as { entries: { userid: string }[] };
      return saved.entries.some((e) => e.userid === u);
    }));
    expect(onDisk.every(Boolean)).toBe(true);
    expect(smallHost({ statePath }).stats().guests).toBe(40);
    await host.close();
  });

  it('answers a change it could not save with an error, and saves it with the next change that can be saved', async () => {
    const stateDir = join(tmp.path, 'state');
    mkdirSync(stateDir);
    const statePath = join(stateDir, 'sim.json');
    const host = smallHost({ statePath });
    await createGuest(host, 'K1');
    rmSync(stateDir, { recursive: true });
    writeFileSync(stateDir, 'not a directory'); // the state directory is gone: every write fails
    await expect(createGuest(host, 'K2')).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/could not be saved/) });
    rmSync(stateDir);
    mkdirSync(stateDir);
    await createGuest(host, 'K3');
    expect(smallHost({ statePath }).snapshot().entries.map((e) => e.userid).sort()).toEqual(['K1', 'K2', 'K3']);
    await host.close();
  });

  it('refuses to start over a damaged state file, naming it and saying what to do', () => {
    const statePath = join(tmp.path, 'sim.json');
    writeFileSync(statePath, '{"format":1,"seq":12,"nextMac":3,"entr');
    expect(() => smallHost({ statePath })).toThrow(new RegExp(`state file ${statePath} is not valid JSON.*restore .* from a backup, or move it aside`));
    writeFileSync(statePath, '{"format":99}');
    expect(() => smallHost({ statePath })).toThrow(/is not a simulator state this version can read.*move it aside/);
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
    await persistenceScenario(a);
    await persistenceScenario(b);
    expect(a.snapshot()).toEqual(b.snapshot());
    const perf = async (h: SimHost) => (await call(h, 'Image_Performance_Query', 'MAINT', { image_names: ['P1'] })).output;
    expect(await perf(a)).toEqual(await perf(b));
  });
});
