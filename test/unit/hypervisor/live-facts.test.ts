/** Host facts kept per period, shared while in flight, and forgotten by any SMAPI call that is not a query. */
import { createLiveFacts, isQuery } from '../../../src/hypervisor/zvm/live-facts.js';
import type { SmapiCall } from '../../../src/hypervisor/zvm/call.js';

function gate<T>() {
  let open!: (v: T) => void;
  const promise = new Promise<T>((r) => { open = r; });
  return { promise, open };
}

describe('live facts', () => {
  it('shares one read among concurrent readers and keeps it for the period', async () => {
    let clock = 0;
    const facts = createLiveFacts(1000, () => clock);
    let loads = 0;
    const pending = gate<number>();
    const load = () => { loads += 1; return loads === 1 ? pending.promise : Promise.resolve(loads); };
    const readers = Array.from({ length: 50 }, () => facts.read('describe', load));
    pending.open(1);
    expect(await Promise.all(readers)).toEqual(Array(50).fill(1));
    clock = 999;
    expect(await facts.read('describe', load)).toBe(1);
    clock = 2000;
    expect(await facts.read('describe', load)).toBe(2);
    expect(loads).toBe(2);
  });

  it('forgets on a write: a reader after it reads again; a read in flight across it is not kept', async () => {
    const facts = createLiveFacts(60_000, () => 0);
    let loads = 0;
    const slow = gate<string>();
    const early = facts.read('pool:X', () => { loads += 1; return slow.promise; });
    const calls: string[] = [];
    const smapi = facts.invalidatedBy((async (fn: string) => { calls.push(fn); return { rc: 0, rs: 0, output: {} }; }) as unknown as SmapiCall);
    await smapi('Image_Disk_Create_DM', 'G1', {} as never);
    const late = facts.read('pool:X', async () => { loads += 1; return 'after'; });
    slow.open('before');
    expect(await early).toBe('before');
    expect(await late).toBe('after');
    expect(await facts.read('pool:X', async () => { loads += 1; return 'third'; })).toBe('after');
    // a query does not forget
    await smapi('Image_Volume_Space_Query_DM', 'MAINT', {} as never);
    expect(await facts.read('pool:X', async () => 'never')).toBe('after');
    expect(loads).toBe(2);
    expect(calls).toEqual(['Image_Disk_Create_DM', 'Image_Volume_Space_Query_DM']);
  });

  it('does not keep a failed read', async () => {
    const facts = createLiveFacts(60_000, () => 0);
    await expect(facts.read('ssi', () => Promise.reject(new Error('host down')))).rejects.toThrow('host down');
    expect(await facts.read('ssi', async () => 'ok')).toBe('ok');
  });

  it('tells queries from writes by the SMAPI function name', () => {
    expect(['System_Information_Query', 'Image_Query_DM', 'Image_Volume_Space_Query_DM', 'Virtual_Network_Vswitch_Query_Extended'].every(isQuery)).toBe(true);
    expect(['Image_Create_DM', 'Image_Activate', 'Image_Disk_Create_DM', 'Image_Lock_DM', 'Image_Console_Get'].some(isQuery)).toBe(false);
  });
});
