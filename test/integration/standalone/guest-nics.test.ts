/** NIC and network interface routes over real HTTP (standalone): the changes reach the z/VM directory. */
import { jest } from '@jest/globals';
import type { ZGuest } from '../../../src/api/index.js';
import { expectError, startGuestWorld, type GuestWorld } from './guest-support.js';

jest.setTimeout(60_000);

describe('guest NICs and interfaces over HTTP (standalone)', () => {
  let w: GuestWorld;
  beforeAll(async () => {
    w = await startGuestWorld();
    await w.createGuest('nic01');
    await w.createGuest('nic02');
  });
  afterAll(() => w.stop());

  const nicsOnHost = async (userid: string) => (await w.hv.describeGuest(userid))?.directory.nics;
  const guest = async (name: string) => (await w.app.store.get<ZGuest>('ZGuest', { namespace: 'default', name }))!;

  describe('POST /guests/{userid}/nic', () => {
    it('creates a NICDEF with the default vdev 1000 and the MAC id, and answers the vdev', async () => {
      const res = await w.call('POST', '/guests/nic01/nic', { nic: { mac_addr: '02:00:01:AB:CD:EF', nic_id: 'port-1' } });
      expect(res.status).toBe(200);
      expect(res.body.output).toBe('1000');
      expect(await nicsOnHost('NIC01')).toEqual([{ vdev: '1000', macId: 'ABCDEF' }]);
      expect((await guest('nic01')).status?.nics).toEqual([{ vdev: '1000', mac: '02:00:01:AB:CD:EF', nicId: 'port-1' }]);
    });

    it('takes the next free base (+3) or the requested vdev', async () => {
      expect((await w.call('POST', '/guests/nic01/nic', { nic: {} })).body.output).toBe('1003');
      expect((await w.call('POST', '/guests/nic01/nic', { nic: { vdev: '2000' } })).body.output).toBe('2000');
      expect((await nicsOnHost('NIC01'))?.map((n) => n.vdev)).toEqual(['1000', '1003', '2000']);
    });

    it('answers 409 rs6 for a vdev within 2 of an existing NIC, 400 for a bad MAC or vdev, 404 for an unknown guest', async () => {
      expectError(await w.call('POST', '/guests/nic01/nic', { nic: { vdev: '1001' } }), 409, { rs: 6 });
      expectError(await w.call('POST', '/guests/nic01/nic', { nic: { mac_addr: '02-00-01-AB-CD-EF' } }), 400);
      expectError(await w.call('POST', '/guests/nic01/nic', { nic: { vdev: 'xyz' } }), 400);
      expectError(await w.call('POST', '/guests/nic01/nic', { nic: { vdev: 'fffe' } }), 400, { overallRC: 100 });
      expectError(await w.call('POST', '/guests/nosuch/nic', { nic: {} }), 404);
    });

    it('with active: true needs a logged-on guest (409 rs1); then changes the directory', async () => {
      expectError(await w.call('POST', '/guests/nic02/nic', { nic: { active: true } }), 409, { rc: 409, rs: 1 });
      expect(await nicsOnHost('NIC02')).toEqual([]);
      await w.call('POST', '/guests/nic02/action', { action: 'start' });
      expect((await w.call('POST', '/guests/nic02/nic', { nic: { active: 'yes' } })).body.output).toBe('1000');
      expect((await nicsOnHost('NIC02'))?.map((n) => n.vdev)).toEqual(['1000']);
    });
  });

  it('the old GET /guests/{userid}/nic maps each NIC to its vswitch', async () => {
    await w.call('PUT', '/guests/nic01/nic/1003', { info: { couple: true, vswitch: 'vsw1' } });
    const res = await w.call('GET', '/guests/nic01/nic');
    expect(res.body.output).toEqual({ 1000: null, 1003: 'VSW1', 2000: null });
    expectError(await w.call('GET', '/guests/nosuch/nic'), 404);
  });

  describe('PUT /guests/{userid}/nic/{vdev}', () => {
    it('couples to a vswitch (with a VLAN kept in status) and uncouples', async () => {
      expect((await w.call('PUT', '/guests/nic01/nic/1000', { info: { couple: 'true', vswitch: 'VSW2', vlan_id: 100 } })).status).toBe(200);
      expect((await nicsOnHost('NIC01'))?.find((n) => n.vdev === '1000')).toMatchObject({ vswitch: 'VSW2' });
      expect((await guest('nic01')).status?.nics?.find((n) => n.vdev === '1000')).toMatchObject({ vswitch: 'VSW2', vlan: 100 });
      expect((await w.call('PUT', '/guests/nic01/nic/1000', { info: { couple: false } })).status).toBe(200);
      expect((await nicsOnHost('NIC01'))?.find((n) => n.vdev === '1000')?.vswitch).toBeUndefined();
    });

    it('answers 400 for couple without vswitch or a VLAN out of range, 404 for an unknown NIC or guest', async () => {
      expectError(await w.call('PUT', '/guests/nic01/nic/1000', { info: { couple: true } }), 400);
      expectError(await w.call('PUT', '/guests/nic01/nic/1000', { info: { couple: true, vswitch: 'VSW1', vlan_id: 4095 } }), 400);
      expectError(await w.call('PUT', '/guests/nic01/nic/1000', { info: {} }), 400);
      expectError(await w.call('PUT', '/guests/nic01/nic/3000', { info: { couple: false } }), 404, { modID: 20 });
      expectError(await w.call('PUT', '/guests/nosuch/nic/1000', { info: { couple: false } }), 404);
    });

    it('with active: true on a logged-off guest answers 409 rs1', async () => {
      expectError(await w.call('PUT', '/guests/nic01/nic/1000', { info: { couple: true, vswitch: 'VSW1', active: true } }), 409, { rs: 1 });
    });
  });

  describe('DELETE /guests/{userid}/nic/{vdev}', () => {
    it('removes the NICDEF; an unknown NIC is success; a JSON body is required', async () => {
      expect((await w.call('DELETE', '/guests/nic01/nic/2000', { active: false })).status).toBe(200);
      expect((await nicsOnHost('NIC01'))?.map((n) => n.vdev)).toEqual(['1000', '1003']);
      expect((await w.call('DELETE', '/guests/nic01/nic/2000', {})).status).toBe(200);
      expectError(await w.call('DELETE', '/guests/nic01/nic/1003'), 400);
      expectError(await w.call('DELETE', '/guests/nosuch/nic/1000', {}), 404);
    });
  });

  describe('POST and DELETE /guests/{userid}/interface', () => {
    const network = { ip_addr: '10.1.0.5', cidr: '10.1.0.0/24', gateway_addr: '10.1.0.1', dns_addr: ['10.1.0.2'] };

    it('adds a NIC per interface, echoes guest_networks with nic_vdev, and records the network (OS files not generated)', async () => {
      const res = await w.call<Record<string, unknown>[]>('POST', '/guests/nic02/interface', { interface: { os_version: 'RHEL8.6', guest_networks: [network] } });
      expect(res.status).toBe(200);
      expect(res.body.output).toEqual([{ ...network, nic_vdev: '1003' }]);
      expect((await nicsOnHost('NIC02'))?.map((n) => n.vdev)).toEqual(['1000', '1003']);
      const status = (await guest('nic02')).status;
      expect(status?.network).toMatchObject({ osVersion: 'RHEL8.6', interfaces: [{ nicVdev: '1003', ipAddr: '10.1.0.5', cidr: '10.1.0.0/24' }] });
      expect(status?.conditions?.find((c) => c.type === 'NetworkConfigured')).toMatchObject({ status: 'True', reason: 'InterfacesRecorded' });
    });

    it.each(['rhel7.9', 'SLES15SP3', 'sles12.5', 'ubuntu22.04', 'rhcos4.12', 'RedHat7.2', 'suse15'])('accepts os_version %s', async (os) => {
      const res = await w.call('POST', '/guests/nic02/interface', { interface: { os_version: os, guest_networks: [{ nic_vdev: '4000' }] } });
      expect(res.status).toBe(200);
      await w.call('DELETE', '/guests/nic02/interface', { interface: { os_version: os, vdev: '4000' } });
    });

    it.each([
      ['an unknown os_version', { os_version: 'win10', guest_networks: [network] }, 'os_version'],
      ['ip_addr without cidr', { os_version: 'rhel8', guest_networks: [{ ip_addr: '10.1.0.6' }] }, "'cidr' is a dependency of 'ip_addr'"],
      ['a bad IPv4 address', { os_version: 'rhel8', guest_networks: [{ ip_addr: '999.1.1.1', cidr: '10.0.0.0/8' }] }, 'ipv4'],
      ['an empty guest_networks', { os_version: 'rhel8', guest_networks: [] }, 'guest_networks'],
    ])('answers 400 for %s', async (_label, body, text) => {
      const res = await w.call('POST', '/guests/nic02/interface', { interface: body });
      expectError(res, 400);
      expect(res.body.errmsg).toContain(text);
    });

    it('with active on a logged-off guest answers 409; an unknown guest 404', async () => {
      expectError(await w.call('POST', '/guests/nic01/interface', { interface: { os_version: 'rhel8', guest_networks: [network], active: true } }), 409, { rs: 1 });
      expectError(await w.call('POST', '/guests/nosuch/interface', { interface: { os_version: 'rhel8', guest_networks: [network] } }), 404);
    });

    it('DELETE removes the interface and its NIC', async () => {
      expect((await w.call('DELETE', '/guests/nic02/interface', { interface: { os_version: 'rhel8.6', vdev: '1003' } })).status).toBe(200);
      expect((await nicsOnHost('NIC02'))?.map((n) => n.vdev)).toEqual(['1000']);
      expect((await guest('nic02')).status?.conditions?.find((c) => c.type === 'NetworkConfigured')?.status).toBe('False');
      expectError(await w.call('DELETE', '/guests/nic02/interface', { interface: { os_version: 'rhel8.6' } }), 400);
    });
  });
});
