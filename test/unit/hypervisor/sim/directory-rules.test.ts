import { call, createGuest, entry, rcrs, records, smallHost } from './helpers.js';

const SYNC_OP = 0xffffffff;

describe('simulated directory: Image_Create_DM', () => {
  it('creates an entry and answers the synchronous operation id', async () => {
    const host = smallHost();
    const r = await call(host, 'Image_Create_DM', 'linux01', { image_record_array: entry('LINUX01') });
    expect(rcrs(r)).toEqual([0, 0]);
    expect(r.output).toEqual({ operation_id: SYNC_OP });
    expect(await records(host, 'LINUX01')).toEqual(entry('LINUX01'));
  });

  it.each<[string, string, string[], [number, number]]>([
    ['a duplicate', 'DUP1', entry('DUP1'), [400, 8]],
    ['an unknown INCLUDE profile', 'NEW1', ['USER NEW1 P 1G 1G G', 'INCLUDE NOPROF'], [436, 4]],
    ['two INCLUDE statements', 'NEW1', ['USER NEW1 P 1G 1G G', 'INCLUDE OSDFLT', 'INCLUDE OSDFLT'], [436, 40]],
    ['two USER statements', 'NEW1', ['USER NEW1 P 1G 1G G', 'USER NEW2 P 1G 1G G'], [400, 40]],
    ['a USER id other than the target', 'NEW1', ['USER OTHER P 1G 1G G'], [400, 4]],
    ['no records', 'NEW1', [], [24, 524]],
    ['a target longer than 8', 'TOOLONGID', ['USER TOOLONGID P 1G 1G G'], [24, 113]],
    ['a target with a bad character', 'BAD!', ['USER BAD! P 1G 1G G'], [24, 126]],
  ])('refuses %s', async (_name, target, recs, expected) => {
    const host = smallHost();
    await createGuest(host, 'DUP1');
    expect(rcrs(await call(host, 'Image_Create_DM', target, { image_record_array: recs }))).toEqual(expected);
  });

  it('returns records as SMAPI does: 72 bytes, upper case, single blanks', async () => {
    const host = smallHost();
    await call(host, 'Image_Create_DM', 'GT@PONG', { image_record_array: ['USER gt@pong @sm8pi@  1G 1G ABCDEFG    ', '  IPL CMS'] });
    const r = await call(host, 'Image_Query_DM', 'GT@PONG');
    const recs = r.output.image_record_array as string[];
    expect(recs.every((s) => s.length === 72)).toBe(true);
    expect(recs.map((s) => s.trimEnd())).toEqual(['USER GT@PONG @SM8PI@ 1G 1G ABCDEFG', 'IPL CMS']);
  });
});

describe('simulated directory: query, delete, names', () => {
  it.each([
    ['Image_Query_DM', {}],
    ['Image_Delete_DM', { data_security_erase: 0 }],
    ['Image_Lock_DM', { device_address: '' }],
  ])('%s of a missing entry → 400/4', async (fn, params) => {
    expect(rcrs(await call(smallHost(), fn, 'NOBODY', params))).toEqual([400, 4]);
  });

  it('lists every entry name, sorted', async () => {
    const host = smallHost();
    for (const u of ['ZED', 'ALPHA', 'MID']) await createGuest(host, u);
    const r = await call(host, 'Image_Name_Query_DM', 'FOOBAR');
    expect(r.output.image_name_array).toEqual([{ image_name: 'ALPHA' }, { image_name: 'MID' }, { image_name: 'ZED' }]);
  });

  it('deletes an entry, which then reads as missing', async () => {
    const host = smallHost();
    await createGuest(host, 'GONE1');
    const r = await call(host, 'Image_Delete_DM', 'GONE1', { data_security_erase: 0 });
    expect(rcrs(r)).toEqual([0, 0]);
    expect(r.output).toEqual({ operation_id: SYNC_OP });
    expect(rcrs(await call(host, 'Image_Query_DM', 'GONE1'))).toEqual([400, 4]);
  });

  it('refuses to delete a logged-on guest with 596/6831 until it is logged off', async () => {
    const host = smallHost();
    await createGuest(host, 'RUN1');
    await call(host, 'Image_Activate', 'RUN1');
    expect(rcrs(await call(host, 'Image_Delete_DM', 'RUN1', { data_security_erase: 0 }))).toEqual([596, 6831]);
    await call(host, 'Image_Deactivate', 'RUN1', { force_time: 'IMMED' });
    expect(rcrs(await call(host, 'Image_Delete_DM', 'RUN1', { data_security_erase: 0 }))).toEqual([0, 0]);
  });
});

describe('simulated directory: locks and replace', () => {
  const newEntry = entry('LK1', 'NICDEF 1000 TYPE QDIO', 'NICDEF 1000 LAN SYSTEM VSW1');

  it('walks lock → replace → unlocked', async () => {
    const host = smallHost();
    await createGuest(host, 'LK1');
    expect(rcrs(await call(host, 'Image_Replace_DM', 'LK1', { image_record_array: newEntry }))).toEqual([400, 24]);
    expect(rcrs(await call(host, 'Image_Lock_DM', 'LK1', { device_address: '' }))).toEqual([0, 0]);
    expect(rcrs(await call(host, 'Image_Lock_DM', 'LK1', { device_address: '' }))).toEqual([400, 12]);
    expect(rcrs(await call(host, 'Image_Replace_DM', 'LK1', { image_record_array: newEntry }))).toEqual([0, 0]);
    expect(await records(host, 'LK1')).toEqual(newEntry);
    // replace unlocked it
    expect(rcrs(await call(host, 'Image_Unlock_DM', 'LK1', { device_address: '' }))).toEqual([400, 24]);
  });

  it('blocks other updates of a locked entry with 400/12', async () => {
    const host = smallHost();
    await createGuest(host, 'LK2');
    await call(host, 'Image_Lock_DM', 'LK2', { device_address: '' });
    const r = await call(host, 'Virtual_Network_Adapter_Create_Extended_DM', 'LK2', { image_device_number: '1000', adapter_type: 'QDIO' });
    expect(rcrs(r)).toEqual([400, 12]);
    expect(rcrs(await call(host, 'Image_Unlock_DM', 'LK2', { device_address: '' }))).toEqual([0, 0]);
  });

  it('locks one device: 404/12 on updates of that device only', async () => {
    const host = smallHost();
    await createGuest(host, 'LK3');
    expect(rcrs(await call(host, 'Image_Lock_DM', 'LK3', { device_address: '100' }))).toEqual([0, 0]);
    const onLocked = await call(host, 'Virtual_Network_Adapter_Create_Extended_DM', 'LK3', { image_device_number: '0100' });
    const onOther = await call(host, 'Virtual_Network_Adapter_Create_Extended_DM', 'LK3', { image_device_number: '1000' });
    expect([rcrs(onLocked), rcrs(onOther)]).toEqual([[404, 12], [0, 0]]);
    expect(rcrs(await call(host, 'Image_Unlock_DM', 'LK3', { device_address: '0200' }))).toEqual([404, 24]);
  });

  it('refuses a replacement with a wrong USER id and keeps the lock', async () => {
    const host = smallHost();
    await createGuest(host, 'LK4');
    await call(host, 'Image_Lock_DM', 'LK4', { device_address: '' });
    expect(rcrs(await call(host, 'Image_Replace_DM', 'LK4', { image_record_array: entry('OTHER') }))).toEqual([400, 4]);
    expect(rcrs(await call(host, 'Image_Unlock_DM', 'LK4', { device_address: '' }))).toEqual([0, 0]);
  });
});

describe('simulated directory: CPU and SHARE keywords', () => {
  it('adds and removes COMMAND DEFINE CPU and sets SHARE', async () => {
    const host = smallHost();
    await createGuest(host, 'CPU1', 'SHARE RELATIVE 100');
    const up = await call(host, 'Image_Definition_Update_DM', 'CPU1', {
      definition_update_directory_keyword_parameter_list: ['COMMAND_DEFINE_CPU=CPUADDR=01 TYPE=IFL', 'SHARE=RELATIVE=200'],
    });
    expect(rcrs(up)).toEqual([0, 0]);
    let recs = await records(host, 'CPU1');
    expect(recs).toContain('COMMAND DEFINE CPU 01 TYPE IFL');
    expect(recs).toContain('SHARE RELATIVE 200');
    expect(recs).not.toContain('SHARE RELATIVE 100');
    const del = await call(host, 'Image_Definition_Delete_DM', 'CPU1', {
      definition_delete_directory_keyword_parameter_list: ['COMMAND_DEFINE_CPU=CPUADDR=01'],
    });
    expect(rcrs(del)).toEqual([0, 0]);
    recs = await records(host, 'CPU1');
    expect(recs.filter((s) => s.startsWith('COMMAND DEFINE CPU'))).toEqual(['COMMAND DEFINE CPU 00 TYPE IFL']);
  });

  it.each<[string, Record<string, unknown>, [number, number]]>([
    ['an unknown keyword', { definition_update_directory_keyword_parameter_list: ['BOGUS_KEYWORD=BAD'] }, [8, 3002]],
    [
      'more CPUs than MACHINE ESA',
      { definition_update_directory_keyword_parameter_list: ['01', '02', '03', '04'].map((a) => `COMMAND_DEFINE_CPU=CPUADDR=${a} TYPE=IFL`) },
      [520, 32],
    ],
  ])('Image_Definition_Update_DM refuses %s and changes nothing', async (_n, params, expected) => {
    const host = smallHost();
    await createGuest(host, 'CPU2');
    const before = await records(host, 'CPU2');
    const r = await call(host, 'Image_Definition_Update_DM', 'CPU2', params);
    expect(rcrs(r)).toEqual(expected);
    expect(await records(host, 'CPU2')).toEqual(before);
  });

  it('reports the unknown keyword in error_data', async () => {
    const host = smallHost();
    await createGuest(host, 'CPU3');
    const r = await call(host, 'Image_Definition_Update_DM', 'CPU3', { definition_update_directory_keyword_parameter_list: ['BOGUS_KEYWORD=BAD'] });
    expect(r.output).toEqual({ error_data: ['UNKNOWN_DIRECTORY_KEYWORD_PARAMETER=BOGUS_KEYWORD'] });
  });

  it('Image_Definition_Delete_DM of a missing CPU → 520/30', async () => {
    const host = smallHost();
    await createGuest(host, 'CPU4');
    const r = await call(host, 'Image_Definition_Delete_DM', 'CPU4', { definition_delete_directory_keyword_parameter_list: ['CPU=CPUADDR=05'] });
    expect(rcrs(r)).toEqual([520, 30]);
  });

  it('Image_CPU_Define_DM respects MACHINE ESA and refuses an address in use', async () => {
    const host = smallHost();
    await createGuest(host, 'CPU5');
    const define = (addr: string) => call(host, 'Image_CPU_Define_DM', 'CPU5', { cpu_address: addr, base_cpu: 0, cpuid: '', dedicate_cpu: 0, crypto: 0 });
    expect(rcrs(await define('00'))).toEqual([404, 4]);
    expect(rcrs(await define('01'))).toEqual([0, 0]);
    expect(rcrs(await define('02'))).toEqual([0, 0]);
    expect(rcrs(await define('03'))).toEqual([0, 0]);
    expect(rcrs(await define('04'))).toEqual([520, 32]);
    expect(await records(host, 'CPU5')).toEqual(expect.arrayContaining(['CPU 01', 'CPU 02', 'CPU 03']));
  });
});
