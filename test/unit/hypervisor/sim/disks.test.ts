import { addDisk, call, createGuest, rcrs, records, smallHost } from './helpers.js';

const spaceQuery = (q: number, e: number, names = '*') => ({ query_type: q, entry_type: e, entry_names: names });

describe('simulated minidisk pools', () => {
  it('allocates AUTOG extents contiguously and writes the MDISK statement', async () => {
    const host = smallHost();
    await createGuest(host, 'D1');
    const r = await addDisk(host, 'D1', '100', 1000);
    expect(rcrs(r)).toEqual([0, 0]);
    expect(r.output).toEqual({ operation_id: 0 });
    expect(await addDisk(host, 'D1', '101', 500).then(rcrs)).toEqual([0, 0]);
    expect((await records(host, 'D1')).filter((s) => s.startsWith('MDISK'))).toEqual([
      'MDISK 0100 3390 1 1000 VOL001 MR',
      'MDISK 0101 3390 1001 500 VOL001 MR',
    ]);
  });

  it('writes FBA disks as FB-512 with a block count', async () => {
    const host = smallHost();
    await createGuest(host, 'F1');
    expect(rcrs(await addDisk(host, 'F1', '200', 2_097_152, 'POOL2', '9336'))).toEqual([0, 0]);
    expect(await records(host, 'F1')).toContain('MDISK 0200 FB-512 1 2097152 FBA001 MR');
  });

  it('needs one contiguous extent on a single volume: 408/24 even when the group total would do', async () => {
    const host = smallHost();
    await createGuest(host, 'X1');
    expect(rcrs(await addDisk(host, 'X1', '100', 2000))).toEqual([0, 0]); // VOL001: 999 free
    expect(rcrs(await addDisk(host, 'X1', '101', 2000))).toEqual([0, 0]); // VOL002: 999 free
    expect(rcrs(await addDisk(host, 'X1', '102', 1500))).toEqual([408, 24]); // 1998 free in total
    expect(rcrs(await addDisk(host, 'X1', '102', 999))).toEqual([0, 0]);
  });

  it.each<[string, () => Record<string, unknown>, [number, number]]>([
    ['an unknown group', () => ({ allocation_area_name_or_volser: 'NOPOOL' }), [420, 8]],
    ['a 3390 disk in an FBA group', () => ({ allocation_area_name_or_volser: 'POOL2' }), [420, 8]],
    ['an unknown allocation type', () => ({ image_disk_allocation_type: 'MAGIC' }), [24, 419]],
    ['a bad mode', () => ({ image_disk_mode: 'XX' }), [24, 819]],
    ['a non-hex vdev', () => ({ image_disk_number: 'XYZ' }), [24, 216]],
  ])('refuses %s', async (_n, override, expected) => {
    const host = smallHost();
    await createGuest(host, 'E1');
    const r = await call(host, 'Image_Disk_Create_DM', 'E1', {
      image_disk_number: '100',
      image_disk_device_type: '3390',
      image_disk_allocation_type: 'AUTOG',
      allocation_area_name_or_volser: 'POOL1',
      allocation_unit_size: 1,
      image_disk_size: 10,
      image_disk_mode: 'MR',
      image_disk_formatting: 1,
      ...override(),
    });
    expect(rcrs(r)).toEqual(expected);
  });

  it('refuses a vdev already used by an MDISK (408/4) or by a NIC or DEDICATE (404/4)', async () => {
    const host = smallHost();
    await createGuest(host, 'V1', 'DEDICATE 0300 0300', 'NICDEF 1000 TYPE QDIO');
    await addDisk(host, 'V1', '100', 10);
    expect(rcrs(await addDisk(host, 'V1', '100', 10))).toEqual([408, 4]);
    expect(rcrs(await addDisk(host, 'V1', '300', 10))).toEqual([404, 4]);
    expect(rcrs(await addDisk(host, 'V1', '1002', 10))).toEqual([404, 4]); // third device of the NIC
  });

  it('frees the extent on Image_Disk_Delete_DM and answers 208/36 for a missing disk', async () => {
    const host = smallHost();
    await createGuest(host, 'R1');
    await addDisk(host, 'R1', '100', 2999);
    expect(rcrs(await addDisk(host, 'R1', '101', 2999))).toEqual([0, 0]);
    expect(rcrs(await addDisk(host, 'R1', '102', 2999))).toEqual([408, 24]);
    const del = await call(host, 'Image_Disk_Delete_DM', 'R1', { image_disk_number: '100', data_security_erase: 0 });
    expect(rcrs(del)).toEqual([0, 0]);
    expect(del.output).toEqual({ operation_id: 0xffffffff });
    expect(rcrs(await call(host, 'Image_Disk_Delete_DM', 'R1', { image_disk_number: '100', data_security_erase: 0 }))).toEqual([208, 36]);
    expect(rcrs(await addDisk(host, 'R1', '102', 2999))).toEqual([0, 0]);
  });

  it('frees every extent of a deleted guest', async () => {
    const host = smallHost();
    await createGuest(host, 'DEL1');
    await addDisk(host, 'DEL1', '100', 2999);
    await addDisk(host, 'DEL1', '101', 2999);
    await call(host, 'Image_Delete_DM', 'DEL1', { data_security_erase: 0 });
    const used = await call(host, 'Image_Volume_Space_Query_DM', 'MAINT', spaceQuery(3, 3, 'POOL1'));
    expect(used.output.record_array).toEqual([]);
  });
});

describe('simulated Image_Replace_DM and extents', () => {
  it('frees the extent of an MDISK the replacement drops and refuses one that overlaps another', async () => {
    const host = smallHost();
    await createGuest(host, 'RP1');
    await createGuest(host, 'RP2');
    await addDisk(host, 'RP1', '100', 100);
    await addDisk(host, 'RP2', '100', 100); // VOL001 101..200
    const base = (await records(host, 'RP1')).filter((s) => !s.startsWith('MDISK'));
    await call(host, 'Image_Lock_DM', 'RP1', { device_address: '' });
    const overlap = await call(host, 'Image_Replace_DM', 'RP1', { image_record_array: [...base, 'MDISK 0100 3390 150 10 VOL001 MR'] });
    expect(rcrs(overlap)).toEqual([408, 24]);
    expect(await records(host, 'RP1')).toContain('MDISK 0100 3390 1 100 VOL001 MR');
    expect(rcrs(await call(host, 'Image_Replace_DM', 'RP1', { image_record_array: base }))).toEqual([0, 0]);
    const used = await call(host, 'Image_Volume_Space_Query_DM', 'MAINT', spaceQuery(3, 1, 'VOL001'));
    expect(used.output.record_array).toEqual(['VOL001 3390 101 100 RP2 0100 * POOL1 VOL001']);
  });
});

describe('simulated Image_Volume_Space_Query_DM', () => {
  it('reports used (q3) and free (q2) extents that add up to the volume', async () => {
    const host = smallHost();
    await createGuest(host, 'Q1');
    await addDisk(host, 'Q1', '100', 1000);
    await addDisk(host, 'Q1', '101', 500);
    await call(host, 'Image_Disk_Delete_DM', 'Q1', { image_disk_number: '100', data_security_erase: 0 });
    const used = await call(host, 'Image_Volume_Space_Query_DM', 'MAINT', spaceQuery(3, 1, 'VOL001'));
    expect(used.output.record_array).toEqual(['VOL001 3390 1001 500 Q1 0101 * POOL1 VOL001']);
    const free = await call(host, 'Image_Volume_Space_Query_DM', 'MAINT', spaceQuery(2, 3, 'POOL1'));
    expect(free.output.record_array).toEqual([
      'VOL001 3390 1 1000 POOL1 VOL001',
      'VOL001 3390 1501 1499 POOL1 VOL001',
      'VOL002 3390 1 2999 POOL1 VOL002',
    ]);
  });

  it('reports definitions of groups and volumes (q1)', async () => {
    const host = smallHost();
    const groups = await call(host, 'Image_Volume_Space_Query_DM', 'MAINT', spaceQuery(1, 3));
    expect(groups.output.record_array).toEqual(['POOL1 VOL001 VOL002', 'POOL2 FBA001']);
    const vol = await call(host, 'Image_Volume_Space_Query_DM', 'MAINT', spaceQuery(1, 1, 'FBA001'));
    expect(vol.output.record_array).toEqual(['FBA001 9336 4194304']);
  });

  it.each([
    [3, 'NOPOOL'],
    [1, 'NOVOL'],
  ])('answers 420/8 for an unknown entry (entry type %d, %s)', async (entryType, name) => {
    const r = await call(smallHost(), 'Image_Volume_Space_Query_DM', 'MAINT', spaceQuery(2, entryType, name));
    expect(rcrs(r)).toEqual([420, 8]);
  });
});

describe('simulated disks in a running guest', () => {
  it('reports 29-byte-record fields of the active disks, and links new ones with Image_Disk_Create', async () => {
    const host = smallHost();
    await createGuest(host, 'A1', 'MDISK 0102 FB-512 V-DISK 4194296 MWV');
    await addDisk(host, 'A1', '100', 30);
    await call(host, 'Image_Activate', 'A1');
    await addDisk(host, 'A1', '101', 20);
    const q = await call(host, 'Image_Disk_Query', 'A1', { vdasd_id: 'ALL' });
    expect(q.output.vdasd_array).toEqual([
      { vdasd_vdev: '0100', vdasd_rdev: '2000', vdasd_access_type: 2, vdasd_devtype: '3390', vdasd_size: 30, vdasd_unit: 1, vdasd_volid: 'VOL001' },
      { vdasd_vdev: '0102', vdasd_rdev: 'VDSK', vdasd_access_type: 2, vdasd_devtype: '9336', vdasd_size: 4194296, vdasd_unit: 2, vdasd_volid: '(VDSK)' },
    ]);
    expect(rcrs(await call(host, 'Image_Disk_Query', 'A1', { vdasd_id: '0101' }))).toEqual([8, 8]);
    expect(rcrs(await call(host, 'Image_Disk_Create', 'A1', { image_disk_number: '101', image_disk_mode: 'MR' }))).toEqual([0, 0]);
    expect(rcrs(await call(host, 'Image_Disk_Create', 'A1', { image_disk_number: '101', image_disk_mode: 'MR' }))).toEqual([204, 4]);
    const one = await call(host, 'Image_Disk_Query', 'A1', { vdasd_id: '101' });
    expect(one.output.vdasd_array).toEqual([expect.objectContaining({ vdasd_vdev: '0101', vdasd_size: 20 })]);
  });

  it('answers 200/12 for Image_Disk_Query of a logged-off guest', async () => {
    const host = smallHost();
    await createGuest(host, 'OFF');
    expect(rcrs(await call(host, 'Image_Disk_Query', 'OFF', { vdasd_id: 'ALL' }))).toEqual([200, 12]);
  });
});
