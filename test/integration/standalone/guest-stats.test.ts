/** GET /guests/stats, /guests/interfacestats, /guests/vnicsinfo and /guests/nics over real HTTP (standalone). */
import { jest } from '@jest/globals';
import { expectError, startGuestWorld, type GuestWorld } from './guest-support.js';

jest.setTimeout(60_000);

describe('guest statistics and NIC queries over HTTP (standalone)', () => {
  let w: GuestWorld;
  beforeAll(async () => {
    w = await startGuestWorld();
    await w.createGuest('stat01', { vcpus: 2 });
    await w.createGuest('stat02');
    await w.createGuest('stat03');
    await w.call('POST', '/guests/stat01/action', { action: 'start' });
    await w.call('POST', '/guests/stat02/action', { action: 'start' });
    await w.call('POST', '/guests/stat01/nic', { nic: { vdev: '1000', nic_id: 'port-a' } });
    await w.call('PUT', '/guests/stat01/nic/1000', { info: { couple: true, vswitch: 'vsw1' } });
    await w.call('POST', '/guests/stat02/nic', { nic: { nic_id: 'port-b' } });
  });
  afterAll(() => w.stop());

  describe('GET /guests/stats', () => {
    it('answers the figures of one guest, keyed by upper-case userid', async () => {
      const res = await w.call<Record<string, Record<string, number>>>('GET', '/guests/stats?userid=stat01');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body.output)).toEqual(['STAT01']);
      expect(res.body.output.STAT01).toMatchObject({ guest_cpus: 2, max_mem_kb: 512 * 1024 });
      for (const v of Object.values(res.body.output.STAT01)) expect(Number.isInteger(v)).toBe(true);
    });

    it('answers several comma-separated userids; a guest that is off is absent', async () => {
      const res = await w.call<Record<string, unknown>>('GET', '/guests/stats?userid=stat01,%20stat02,stat03');
      expect(Object.keys(res.body.output).sort()).toEqual(['STAT01', 'STAT02']);
    });

    it('answers {} without userid, 404 when one userid is unknown, 400 for a bad list or an extra key', async () => {
      expect((await w.call('GET', '/guests/stats')).body.output).toEqual({});
      expectError(await w.call('GET', '/guests/stats?userid=stat01,nosuch'), 404, { rs: 1 });
      expectError(await w.call('GET', '/guests/stats?userid='), 400);
      expectError(await w.call('GET', '/guests/stats?userid=abcdefghij'), 400);
      expectError(await w.call('GET', '/guests/stats?foo=1'), 400);
    });
  });

  describe.each(['/guests/interfacestats', '/guests/vnicsinfo'])('GET %s', (path) => {
    it('answers {} (no vNIC counters without a vswitch byte-stats source) for one and several userids', async () => {
      const one = await w.call(`GET`, `${path}?userid=stat01`);
      expect(one.status).toBe(200);
      expect(one.body.output).toEqual({});
      expect((await w.call('GET', `${path}?userid=stat01,stat02`)).body.output).toEqual({});
    });

    it('answers 404 for an unknown userid', async () => {
      expectError(await w.call('GET', `${path}?userid=stat01,nosuch`), 404);
    });
  });

  describe('GET /guests/nics', () => {
    it('lists every NIC of the managed guests without filters', async () => {
      const res = await w.call<Record<string, unknown>[]>('GET', '/guests/nics');
      expect(res.body.output).toEqual(expect.arrayContaining([
        { userid: 'STAT01', interface: '1000', switch: 'VSW1', port: 'port-a', comments: null },
        { userid: 'STAT02', interface: '1000', switch: null, port: 'port-b', comments: null },
      ]));
    });

    it.each([
      ['userid=stat01', ['STAT01']],
      ['vswitch=vsw1', ['STAT01']],
      ['nic_id=port-b', ['STAT02']],
      ['userid=stat02&vswitch=vsw1', []],
      ['userid=nosuch', []],
    ])('filters by %s (ANDed, case-insensitive)', async (query, userids) => {
      const res = await w.call<{ userid: string }[]>('GET', `/guests/nics?${query}`);
      expect(res.status).toBe(200);
      expect(res.body.output.map((r) => r.userid)).toEqual(userids);
    });
  });
});
