import { call, createGuest, rcrs, records, smallHost } from './helpers.js';

const dedicate = (vdev: string, rdev: string, readonly = 0) => ({ image_device_number: vdev, real_device_number: rdev, readonly });

describe('simulated FCP devices', () => {
  it('reports the configured inventory with NPIV and physical WWPNs, CHPID and status (System_WWPN_Query)', async () => {
    const host = smallHost({ fcps: [{ from: '1a00', to: '1a02', chpid: '27', offline: ['1A02'] }] });
    const r = await call(host, 'System_WWPN_Query', 'MAINT', { owner: 'YES' });
    expect(rcrs(r)).toEqual([0, 0]);
    expect(r.output.wwpn_array).toEqual([
      { fcp_dev_id: '1A00', npiv_wwpn: 'C05076DE33001A00', chpid: '27', perm_wwpn: 'C05076DE33000027', dev_status: '2', owner: 'NONE' },
      { fcp_dev_id: '1A01', npiv_wwpn: 'C05076DE33001A01', chpid: '27', perm_wwpn: 'C05076DE33000027', dev_status: '2', owner: 'NONE' },
      { fcp_dev_id: '1A02', npiv_wwpn: 'C05076DE33001A02', chpid: '27', perm_wwpn: 'C05076DE33000027', dev_status: '3', owner: 'NONE' },
    ]);
  });

  it('answers 4/28 when the host has no FCP devices', async () => {
    const host = smallHost({ fcps: [] });
    expect(rcrs(await call(host, 'System_WWPN_Query', 'MAINT', { owner: 'YES' }))).toEqual([4, 28]);
  });

  it('writes DEDICATE to the directory, refuses an occupied vdev and removes it again (404/8 when absent)', async () => {
    const host = smallHost();
    await createGuest(host, 'F1', 'MDISK 0101 3390 1 10 OTHER1 MR');
    expect(rcrs(await call(host, 'Image_Device_Dedicate_DM', 'F1', dedicate('1a00', '1a00')))).toEqual([0, 0]);
    expect(await records(host, 'F1')).toContain('DEDICATE 1A00 1A00');
    expect(rcrs(await call(host, 'Image_Device_Dedicate_DM', 'F1', dedicate('1A00', '1B00')))).toEqual([404, 4]);
    expect(rcrs(await call(host, 'Image_Device_Dedicate_DM', 'F1', dedicate('0101', '1B00')))).toEqual([408, 4]);
    expect(rcrs(await call(host, 'Image_Device_Undedicate_DM', 'F1', { image_device_number: '1A00' }))).toEqual([0, 0]);
    expect((await records(host, 'F1')).some((s) => s.startsWith('DEDICATE'))).toBe(false);
    expect(rcrs(await call(host, 'Image_Device_Undedicate_DM', 'F1', { image_device_number: '1A00' }))).toEqual([404, 8]);
    expect(rcrs(await call(host, 'Image_Device_Dedicate_DM', 'NOSUCH', dedicate('1A00', '1A00')))).toEqual([400, 4]);
  });

  it('attaches to a logged-on guest: the FCP turns active with its owner, and is free again after the detach', async () => {
    const host = smallHost();
    await createGuest(host, 'F2');
    await createGuest(host, 'F3');
    expect(rcrs(await call(host, 'Image_Device_Dedicate', 'F2', dedicate('1A01', '1A01')))).toEqual([200, 12]);
    await call(host, 'Image_Activate', 'F2');
    await call(host, 'Image_Activate', 'F3');
    expect(rcrs(await call(host, 'Image_Device_Dedicate', 'F2', dedicate('1A01', '1A01')))).toEqual([0, 0]);
    expect(rcrs(await call(host, 'Image_Device_Dedicate', 'F2', dedicate('1A01', '1A02')))).toEqual([204, 4]);
    expect(rcrs(await call(host, 'Image_Device_Dedicate', 'F3', dedicate('1A01', '1A01')))).toEqual([204, 12]);
    const q = await call(host, 'System_WWPN_Query', 'MAINT');
    expect((q.output.wwpn_array as { fcp_dev_id: string; dev_status: string; owner: string }[]).find((e) => e.fcp_dev_id === '1A01'))
      .toMatchObject({ dev_status: '1', owner: 'F2' });
    expect(rcrs(await call(host, 'Image_Device_Undedicate', 'F2', { image_device_number: '1A01' }))).toEqual([0, 0]);
    expect(rcrs(await call(host, 'Image_Device_Undedicate', 'F2', { image_device_number: '1A01' }))).toEqual([204, 8]);
    const after = await call(host, 'System_WWPN_Query', 'MAINT');
    expect((after.output.wwpn_array as { fcp_dev_id: string; dev_status: string }[]).find((e) => e.fcp_dev_id === '1A01')?.dev_status).toBe('2');
  });

  it('refuses to attach an offline FCP (204/16)', async () => {
    const host = smallHost({ fcps: [{ from: '1A00', to: '1A00', chpid: '27', offline: ['1A00'] }] });
    await createGuest(host, 'F4');
    await call(host, 'Image_Activate', 'F4');
    expect(rcrs(await call(host, 'Image_Device_Dedicate', 'F4', dedicate('1A00', '1A00')))).toEqual([204, 16]);
  });

  it('brings a directory DEDICATE into the active configuration at logon', async () => {
    const host = smallHost();
    await createGuest(host, 'F5');
    await call(host, 'Image_Device_Dedicate_DM', 'F5', dedicate('1B03', '1B03'));
    await call(host, 'Image_Activate', 'F5');
    const q = await call(host, 'System_WWPN_Query', 'MAINT');
    expect((q.output.wwpn_array as { fcp_dev_id: string; owner: string }[]).find((e) => e.fcp_dev_id === '1B03')?.owner).toBe('F5');
  });
});
