import { parseHostInfo } from '../../../../src/hypervisor/zvm/host.js';
import { addDisk, call, createGuest, rcrs, smallHost } from './helpers.js';

describe('simulated host queries and plumbing', () => {
  it('answers System_Information_Query items in the token order feilong indexes', async () => {
    const host = smallHost({ version: '7.2.0', host: { memoryGB: 512, iplDate: '2026-02-03', iplTime: '04:05:06' } });
    const r = await call(host, 'System_Information_Query', 'DUMMY');
    const items = r.output.system_information_data as string[];
    expect(items.map((i) => i.split('=')[0])).toEqual(['CMS_LEVEL', 'CPU_CAPABILITY', 'CPUID', 'CP_LEVEL', 'STORAGE', 'TIME']);
    const storage = items.find((i) => i.includes('STORAGE='))!.split(' ');
    expect(storage[0].split('=')[2]).toBe('512G');
    expect(storage[4]).toBe('RESERVED=0');
    const cp = items.find((i) => i.includes('IPL_TIME='))!.split(' ');
    expect(cp.slice(5, 8)).toEqual(['IPL_TIME=04:05:06', 'IPL_DATE=2026-02-03', 'IPL_TIME_ZONE=UTC']);
    expect(parseHostInfo('ZVMSIM', items)).toMatchObject({ version: '7.2.0', memoryMB: 512 * 1024 });
  });

  it('answers the functional level in rs', async () => {
    expect(rcrs(await call(smallHost(), 'Query_API_Functional_Level', 'MAINT'))).toEqual([0, 710]);
  });

  it('reports every asynchronous operation as done', async () => {
    expect(rcrs(await call(smallHost(), 'Query_Asynchronous_Operation_DM', 'MAINT', { operation_id: 1234 }))).toEqual([0, 100]);
  });

  it.each([
    ['an unknown function', 'No_Such_Function', {}, [900, 12]],
    ['a parameter of the wrong type', 'Image_Delete_DM', { data_security_erase: 'yes' }, [24, 210]],
  ])('answers %s', async (_n, fn, params, expected) => {
    const host = smallHost();
    await createGuest(host, 'T1');
    expect(rcrs(await call(host, fn, 'T1', params))).toEqual(expected);
  });

  it('counts calls per function', async () => {
    const host = smallHost();
    await createGuest(host, 'C1');
    await call(host, 'Image_Query_DM', 'C1');
    await call(host, 'Image_Query_DM', 'C1');
    expect(host.callCounts()).toEqual({ Image_Create_DM: 1, Image_Query_DM: 2 });
    host.resetCallCounts();
    expect(host.callCounts()).toEqual({});
  });

  it('applies the configured latency and still answers', async () => {
    const host = smallHost({ latencyMs: 5 });
    expect(rcrs(await call(host, 'Query_API_Functional_Level', 'MAINT'))).toEqual([0, 710]);
  });
});

describe('simulated console spool and performance', () => {
  it('spools logon lines, returns them in console_text, and answers 8/8 when logged off', async () => {
    const host = smallHost();
    await createGuest(host, 'CON1', 'IPL 0100');
    expect(rcrs(await call(host, 'Image_Console_Get', 'CON1'))).toEqual([8, 8]);
    await call(host, 'Image_Activate', 'CON1');
    await call(host, 'Image_Pause', 'CON1', { action: 'pause' });
    const r = await call(host, 'Image_Console_Get', 'CON1');
    const text = r.output.console_text as string;
    expect(text).toMatch(/LOGON CON1 ON ZVMSIM/);
    expect(text).toMatch(/IPL 0100/);
    expect(text).toMatch(/PAUSED/);
    expect(host.consoleOf('con1')).toBe(text);
  });

  it('yields records only for logged-on guests, with counters from the virtual clock', async () => {
    const host = smallHost();
    await createGuest(host, 'PF1');
    await createGuest(host, 'PF2');
    await call(host, 'Image_Activate', 'PF1');
    for (let i = 0; i < 10; i++) await call(host, 'Query_API_Functional_Level', 'MAINT');
    const r = await call(host, 'Image_Performance_Query', 'MAINT', { image_names: ['PF1', 'PF2'] });
    expect(rcrs(r)).toEqual([0, 0]);
    expect(r.output.performance_records).toEqual([
      expect.objectContaining({ guest_name: 'PF1', elapsed_time: 11_000, used_cpu_time: 1_100, samples_total: 11, guest_cpus: 1 }),
    ]);
  });
});

describe('what a deleted guest leaves behind', () => {
  it('drops its console files from the management reader and its own reader', async () => {
    const host = smallHost();
    await createGuest(host, 'GONE1');
    await createGuest(host, 'STAY1');
    for (const u of ['GONE1', 'STAY1']) {
      await call(host, 'Image_Activate', u);
      await call(host, 'Image_Console_Get', u);
    }
    expect(host.readerFiles('OPNCLOUD').map((f) => f.origin)).toEqual(['GONE1', 'STAY1']);
    await call(host, 'Image_Deactivate', 'GONE1', { force_time: 'IMMED' });
    expect(rcrs(await call(host, 'Image_Delete_DM', 'GONE1'))).toEqual([0, 0]);
    expect(host.readerFiles('OPNCLOUD').map((f) => f.origin)).toEqual(['STAY1']);
    expect(host.snapshot().readers).toEqual([['OPNCLOUD', [expect.objectContaining({ origin: 'STAY1' })]]]);
  });

  it('tells the disk-contents keepers which minidisks a call removed, before it answers', async () => {
    const host = smallHost();
    await createGuest(host, 'DSK1');
    expect(rcrs(await addDisk(host, 'DSK1', '0100', 10))).toEqual([0, 0]);
    expect(rcrs(await addDisk(host, 'DSK1', '0101', 10))).toEqual([0, 0]);
    const told: string[] = [];
    const stop = host.onMinidisksGone(async (userid, gone) => {
      await Promise.resolve();
      told.push(...gone.map((d) => `${userid}.${d.vdev}`));
    });
    await call(host, 'Image_Disk_Delete_DM', 'DSK1', { image_disk_number: '0101', data_security_erase: 0 });
    expect(told).toEqual(['DSK1.0101']);
    await call(host, 'Image_Delete_DM', 'DSK1');
    expect(told).toEqual(['DSK1.0101', 'DSK1.0100']);
    stop();
    await createGuest(host, 'DSK2');
    await addDisk(host, 'DSK2', '0100', 10);
    await call(host, 'Image_Delete_DM', 'DSK2');
    expect(told).toHaveLength(2);
  });
});
