/** GET/POST/PUT/DELETE /guests/{userid}/disks over real HTTP (standalone). */
import { jest } from '@jest/globals';
import type { ZGuest } from '../../../src/api/index.js';
import { expectError, startGuestWorld, type GuestWorld } from './guest-support.js';

jest.setTimeout(60_000);

describe('guest disks over HTTP (standalone)', () => {
  let w: GuestWorld;
  beforeAll(async () => {
    w = await startGuestWorld();
    await w.createGuest('disk01', { disk_list: [{ size: '1g', is_boot_disk: true }] });
  });
  afterAll(() => w.stop());

  const vdevsOnHost = async () => (await w.hv.describeGuest('DISK01'))?.directory.disks.map((d) => d.vdev);

  it('POST adds disks after the highest vdev and answers them in the created-disk form', async () => {
    const res = await w.call<Record<string, unknown>[]>('POST', '/guests/disk01/disks', { disk_info: { disk_list: [{ size: '100M', format: 'xfs' }, { size: '200M', disk_pool: 'FBA:POOL2' }] } });
    expect(res.status).toBe(200);
    expect(res.body.output).toEqual([
      { size: '100M', format: 'xfs', disk_pool: 'ECKD:POOL1', vdev: '0101' },
      expect.objectContaining({ size: '200M', disk_pool: 'FBA:POOL2', vdev: '0102' }),
    ]);
    expect(await vdevsOnHost()).toEqual(['0100', '0101', '0102']);
  });

  it('POST without disk_list is a no-op answering ""; bad input is 400; a used vdev is refused', async () => {
    expect((await w.call('POST', '/guests/disk01/disks', { disk_info: {} })).body.output).toBe('');
    expectError(await w.call('POST', '/guests/disk01/disks', { disk_info: { disk_list: [{ size: '1g', format: 'ntfs' }] } }), 400);
    expectError(await w.call('POST', '/guests/disk01/disks', { disk_info: { disk_list: [{ size: '1g', vdev: '0101' }] } }), 400, { overallRC: 100, rs: 3 });
    expectError(await w.call('POST', '/guests/nosuch/disks', { disk_info: { disk_list: [{ size: '1g' }] } }), 404);
  });

  it('GET lists the minidisks of the directory; 404 for an unknown userid', async () => {
    const res = await w.call<{ minidisks: Record<string, unknown>[] }>('GET', '/guests/disk01/disks');
    expect(res.body.output.minidisks.map((d) => d.vdev)).toEqual(['0100', '0101', '0102']);
    expect(res.body.output.minidisks[0]).toMatchObject({ access_type: 'R/W', device_type: '3390', device_units: 'Cylinders' });
    expectError(await w.call('GET', '/guests/nosuch/disks'), 404);
  });

  it('PUT records the guest-OS configuration with the interface defaults (vdev root+1.., /mnt/ephemeral0..)', async () => {
    const res = await w.call('PUT', '/guests/disk01/disks', { disk_info: { disk_list: [{ format: 'ext4' }, { format: 'xfs', mntdir: '/data' }] } });
    expect(res.status).toBe(200);
    expect(res.body.output).toBe('');
    const guest = (await w.app.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'disk01' }))!;
    expect(guest.status?.configuredDisks).toEqual([
      { vdev: '0101', format: 'ext4', mntdir: '/mnt/ephemeral0' },
      { vdev: '0102', format: 'xfs', mntdir: '/data' },
    ]);
  });

  it('PUT answers 404 for a vdev that is not a disk of the guest, 400 without format, 404 for an unknown guest', async () => {
    expectError(await w.call('PUT', '/guests/disk01/disks', { disk_info: { disk_list: [{ format: 'ext4', vdev: '0999' }] } }), 404, { rs: 1 });
    expectError(await w.call('PUT', '/guests/disk01/disks', { disk_info: { disk_list: [{ vdev: '0101' }] } }), 400);
    expectError(await w.call('PUT', '/guests/nosuch/disks', { disk_info: { disk_list: [{ format: 'ext4' }] } }), 404);
  });

  it('DELETE of a logged-on guest answers 501 and changes nothing; when shut down it removes the disks', async () => {
    await w.call('POST', '/guests/disk01/action', { action: 'start' });
    const refused = await w.call('DELETE', '/guests/disk01/disks', { vdev_info: { vdev_list: ['0102'] } });
    expectError(refused, 501, { overallRC: 501, rs: 1 });
    expect(refused.body.errmsg).toContain('delete disks when guest is active');
    expect(await vdevsOnHost()).toEqual(['0100', '0101', '0102']);

    await w.call('POST', '/guests/disk01/action', { action: 'stop' });
    expect((await w.call('DELETE', '/guests/disk01/disks', { vdev_info: { vdev_list: ['0102'] } })).status).toBe(200);
    expect(await vdevsOnHost()).toEqual(['0100', '0101']);
  });

  it('DELETE validates the vdev list (at least one, unique, hex) and needs a known guest', async () => {
    expectError(await w.call('DELETE', '/guests/disk01/disks', { vdev_info: { vdev_list: [] } }), 400);
    expectError(await w.call('DELETE', '/guests/disk01/disks', { vdev_info: { vdev_list: ['0101', '0101'] } }), 400);
    expectError(await w.call('DELETE', '/guests/disk01/disks', { vdev_info: { vdev_list: ['zz'] } }), 400);
    expectError(await w.call('DELETE', '/guests/nosuch/disks', { vdev_info: { vdev_list: ['0101'] } }), 404);
  });
});
