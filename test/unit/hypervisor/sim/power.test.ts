import { PAUSED_FLAG } from '../../../../src/hypervisor/sim/index.js';
import type { SimHost } from '../../../../src/hypervisor/sim/index.js';
import { call, createGuest, rcrs, smallHost } from './helpers.js';

async function running(host: SimHost, userid: string): Promise<void> {
  await createGuest(host, userid, 'IPL 0100');
  expect(rcrs(await call(host, 'Image_Activate', userid))).toEqual([0, 0]);
}

describe('simulated power: activate and deactivate', () => {
  it.each<[string, (h: SimHost) => Promise<void>, string, Record<string, unknown>, [number, number]]>([
    ['activate a missing guest', async () => undefined, 'Image_Activate', {}, [200, 4]],
    ['activate a running guest', (h) => running(h, 'G1'), 'Image_Activate', {}, [200, 8]],
    ['deactivate a missing guest', async () => undefined, 'Image_Deactivate', { force_time: 'IMMED' }, [200, 4]],
    ['deactivate a logged-off guest', (h) => createGuest(h, 'G1'), 'Image_Deactivate', { force_time: 'IMMED' }, [200, 12]],
    ['deactivate WITHIN above the maximum', (h) => running(h, 'G1'), 'Image_Deactivate', { force_time: 'WITHIN 99' }, [200, 36]],
    ['deactivate with a garbled force time', (h) => running(h, 'G1'), 'Image_Deactivate', { force_time: 'SOON' }, [24, 219]],
    ['pause a logged-off guest', (h) => createGuest(h, 'G1'), 'Image_Pause', { action: 'PAUSE=YES' }, [8, 12]],
    ['pause with an unknown action', (h) => running(h, 'G1'), 'Image_Pause', { action: 'sleep' }, [24, 219]],
  ])('%s', async (_name, setup, fn, params, expected) => {
    const host = smallHost({ maxShutdownSeconds: 60 });
    await setup(host);
    expect(rcrs(await call(host, fn, 'G1', params))).toEqual(expected);
  });

  it('logs off at once with IMMED (rs 0, then 200/12)', async () => {
    const host = smallHost();
    await running(host, 'IM1');
    expect(rcrs(await call(host, 'Image_Deactivate', 'IM1', { force_time: ' IMMED' }))).toEqual([0, 0]);
    expect(rcrs(await call(host, 'Image_Status_Query', 'IM1'))).toEqual([0, 12]);
    expect(rcrs(await call(host, 'Image_Deactivate', 'IM1', { force_time: 'IMMED' }))).toEqual([200, 12]);
  });

  it('keeps a signalled logoff pending for logoffPendingCalls calls, answering 200/16 meanwhile', async () => {
    const host = smallHost({ logoffPendingCalls: 3, shutdownTimeSeconds: 45 });
    await running(host, 'SOFT1');
    expect(rcrs(await call(host, 'Image_Deactivate', 'SOFT1', { force_time: '' }))).toEqual([0, 45]);
    expect(rcrs(await call(host, 'Image_Activate', 'SOFT1'))).toEqual([200, 16]);
    expect(host.queryUser('SOFT1')).toBe('logoff-pending');
    expect(rcrs(await call(host, 'Image_Deactivate', 'SOFT1', { force_time: 'WITHIN 10' }))).toEqual([200, 16]);
    // the fourth call after the signal finds it logged off
    expect(host.queryUser('SOFT1')).toBe('off');
    expect(rcrs(await call(host, 'Image_Activate', 'SOFT1'))).toEqual([0, 0]);
  });

  it('answers rs = WITHIN seconds', async () => {
    const host = smallHost();
    await running(host, 'W1');
    expect(rcrs(await call(host, 'Image_Deactivate', 'W1', { force_time: 'within 120' }))).toEqual([0, 120]);
  });

  it('forces a pending logoff with IMMED and still answers 200/16', async () => {
    const host = smallHost({ logoffPendingCalls: 100 });
    await running(host, 'F1');
    await call(host, 'Image_Deactivate', 'F1', { force_time: '' });
    expect(rcrs(await call(host, 'Image_Deactivate', 'F1', { force_time: 'IMMED' }))).toEqual([200, 16]);
    expect(host.queryUser('F1')).toBe('off');
  });
});

describe('simulated power: pause and status', () => {
  it('pauses and unpauses in both parameter forms; paused shows in queryUser and perf flags', async () => {
    const host = smallHost();
    await running(host, 'P1');
    expect(rcrs(await call(host, 'Image_Pause', 'P1', { action: 'pause' }))).toEqual([0, 0]);
    expect(host.queryUser('P1')).toBe('paused');
    const perf = await call(host, 'Image_Performance_Query', 'MAINT', { image_names: ['P1'] });
    const [rec] = perf.output.performance_records as { flags: number }[];
    expect(rec.flags & PAUSED_FLAG).toBe(PAUSED_FLAG);
    expect(rcrs(await call(host, 'Image_Pause', 'P1', { action: 'PAUSE=NO' }))).toEqual([0, 0]);
    expect(host.queryUser('P1')).toBe('on');
  });

  it('lists every active guest for target *, including paused ones', async () => {
    const host = smallHost();
    for (const u of ['B2', 'A1']) await running(host, u);
    await createGuest(host, 'OFF1');
    await call(host, 'Image_Pause', 'B2', { action: 'pause' });
    const r = await call(host, 'Image_Status_Query', '*');
    expect(r.output.image_name_array).toEqual([{ image_name: 'A1' }, { image_name: 'B2' }]);
  });

  it('answers one active guest by name and rc 0 rs 12 for a logged-off or unknown one', async () => {
    const host = smallHost();
    await running(host, 'ON1');
    await createGuest(host, 'OFF1');
    expect((await call(host, 'Image_Status_Query', 'on1')).output).toEqual({ image_name_array: [{ image_name: 'ON1' }] });
    expect(rcrs(await call(host, 'Image_Status_Query', 'OFF1'))).toEqual([0, 12]);
    expect(rcrs(await call(host, 'Image_Status_Query', 'NOBODY'))).toEqual([0, 12]);
  });
});

describe('simulated power: active configuration', () => {
  it('starts with the directory CPUs and memory; directory changes do not alter it', async () => {
    const host = smallHost();
    await running(host, 'AC1');
    await call(host, 'Image_Definition_Update_DM', 'AC1', { definition_update_directory_keyword_parameter_list: ['COMMAND_DEFINE_CPU=CPUADDR=01 TYPE=IFL'] });
    const perf = await call(host, 'Image_Performance_Query', 'MAINT', { image_names: ['AC1'] });
    expect(perf.output.performance_records).toEqual([expect.objectContaining({ guest_cpus: 1, max_memory: 2048 * 1024, max_cpu_limit: 4 })]);
  });

  it('adds CPUs to the running guest only, up to MACHINE ESA', async () => {
    const host = smallHost();
    await running(host, 'AC2');
    const define = (a: string) => call(host, 'Image_CPU_Define', 'AC2', { cpu_address: a, cpu_type: 2 });
    expect(rcrs(await define('00'))).toEqual([216, 24]);
    for (const a of ['01', '02', '03']) expect(rcrs(await define(a))).toEqual([0, 0]);
    expect(rcrs(await define('04'))).toEqual([216, 28]);
    const perf = await call(host, 'Image_Performance_Query', 'MAINT', { image_names: ['AC2'] });
    expect(perf.output.performance_records).toEqual([expect.objectContaining({ guest_cpus: 4 })]);
    const dir = (await call(host, 'Image_Query_DM', 'AC2')).output.image_record_array as string[];
    expect(dir.filter((s) => s.startsWith('COMMAND DEFINE CPU'))).toHaveLength(1);
  });

  it('refuses Image_CPU_Define for a logged-off guest with 216/12', async () => {
    const host = smallHost();
    await createGuest(host, 'AC3');
    expect(rcrs(await call(host, 'Image_CPU_Define', 'AC3', { cpu_address: '01', cpu_type: 2 }))).toEqual([216, 12]);
  });

  it('comes back with directory CPUs after a logoff and logon', async () => {
    const host = smallHost();
    await running(host, 'AC4');
    await call(host, 'Image_CPU_Define', 'AC4', { cpu_address: '01', cpu_type: 2 });
    await call(host, 'Image_Deactivate', 'AC4', { force_time: 'IMMED' });
    await call(host, 'Image_Activate', 'AC4');
    const perf = await call(host, 'Image_Performance_Query', 'MAINT', { image_names: ['AC4'] });
    expect(perf.output.performance_records).toEqual([expect.objectContaining({ guest_cpus: 1 })]);
  });
});
