/** POST /guests/{userid}/action over real HTTP (standalone): every action, its rules and both body forms. */
import { jest } from '@jest/globals';
import type { ZGuest } from '../../../src/api/index.js';
import { expectError, startGuestWorld, type GuestWorld } from './guest-support.js';

jest.setTimeout(90_000);

describe('guest actions over HTTP (standalone)', () => {
  let w: GuestWorld;
  beforeAll(async () => {
    w = await startGuestWorld();
  });
  afterAll(() => w.stop());

  const act = (userid: string, body: unknown) => w.call('POST', `/guests/${userid}/action`, body);
  const power = (userid: string) => w.hv.queryPowerState(userid);
  const guest = async (name: string) => (await w.app.store.get<ZGuest>('ZGuest', { namespace: 'default', name }))!;

  describe('power', () => {
    beforeAll(() => w.createGuest('pow01'));

    it('start, pause, unpause, softstop, stop change the power state on z/VM and answer ""', async () => {
      const steps: [string, string][] = [['start', 'on'], ['pause', 'paused'], ['unpause', 'on'], ['softstop', 'off'], ['start', 'on'], ['stop', 'off']];
      for (const [action, state] of steps) {
        const res = await act('pow01', { action });
        expect({ action, status: res.status, output: res.body.output }).toEqual({ action, status: 200, output: '' });
        expect(await power('POW01')).toBe(state);
      }
    });

    it('pause and unpause of a logged-off guest answer 409 with 300/rs5', async () => {
      expectError(await act('pow01', { action: 'pause' }), 409, { overallRC: 300, modID: 10, rs: 5 });
      expectError(await act('pow01', { action: 'unpause' }), 409, { overallRC: 300, rs: 5 });
    });

    it('accepts the documented extra fields and refuses unknown ones', async () => {
      expect((await act('pow01', { action: 'start', timeout: 0 })).status).toBe(200);
      expect((await act('pow01', { action: 'stop', timeout: 10, poll_interval: 5 })).status).toBe(200);
      expectError(await act('pow01', { action: 'stop', bogus: 1 }), 400);
      expectError(await act('pow01', { action: 'start', timeout: -1 }), 400);
    });

    it('reboot and reset are annotation tokens acknowledged in status (the guest cycles on z/VM)', async () => {
      await act('pow01', { action: 'start' });
      for (const [action, field] of [['reboot', 'lastHandledRebootAt'], ['reset', 'lastHandledResetAt']] as const) {
        const before = new Date().toISOString();
        expect((await act('pow01', { action })).status).toBe(200);
        const g = await guest('pow01');
        const token = g.metadata.annotations?.[`zvm.dev/${action}-requested-at`];
        expect(token! >= before).toBe(true);
        expect(g.status?.[field]).toBe(token);
        expect(await power('POW01')).toBe('on');
      }
      expect(await w.hv.getConsoleOutput('POW01')).toMatch(/LOGOFF[\s\S]*LOGON|LOGON[\s\S]*LOGOFF/);
    });

    it('get_console_output answers the console text', async () => {
      const res = await act('pow01', { action: 'get_console_output' });
      expect(res.status).toBe(200);
      expect(typeof res.body.output).toBe('string');
      expect(res.body.output).toContain('POW01');
    });
  });

  describe('action body forms and errors', () => {
    beforeAll(() => w.createGuest('form01', { max_cpu: 4 }));

    it('accepts the older dict form of action', async () => {
      expect((await act('form01', { action: { action: 'start' } })).status).toBe(200);
      expect(await power('FORM01')).toBe('on');
      expect((await act('form01', { action: { stop: null } })).status).toBe(200);
      expect(await power('FORM01')).toBe('off');
      expect((await act('form01', { action: { resize_cpus: { cpu_cnt: 2 } } })).status).toBe(200);
      expect((await w.hv.describeGuest('FORM01'))?.directory.cpus).toBe(2);
    });

    it.each([
      ['no action', {}, 'action not exist or is empty'],
      ['an empty action', { action: '' }, 'action not exist or is empty'],
      ['an unknown action', { action: 'dance' }, 'action dance is invalid'],
      ['an empty dict action', { action: {} }, 'action not exist or is empty'],
    ])('answers 400 for %s', async (_label, body, text) => {
      const res = await act('form01', body);
      expectError(res, 400, { modID: 120 });
      expect(res.body.errmsg).toBe(text);
    });

    it('answers 404 for an unknown guest', async () => {
      expectError(await act('nosuch', { action: 'start' }), 404, { rs: 1 });
    });
  });

  describe('CPU resize', () => {
    beforeAll(async () => {
      await w.createGuest('cpu01', { vcpus: 1, max_cpu: 4 });
    });

    it('resize_cpus changes the directory count whether the guest is on or off', async () => {
      expect((await act('cpu01', { action: 'resize_cpus', cpu_cnt: 3 })).status).toBe(200);
      expect((await w.hv.describeGuest('CPU01'))?.directory.cpus).toBe(3);
      expect((await act('cpu01', { action: 'resize_cpus', cpu_cnt: 2 })).status).toBe(200);
      expect((await w.hv.describeGuest('CPU01'))?.directory.cpus).toBe(2);
    });

    it('live_resize_cpus needs an active guest (409 rs1)', async () => {
      expectError(await act('cpu01', { action: 'live_resize_cpus', cpu_cnt: 3 }), 409, { rc: 409, rs: 1 });
    });

    it('live_resize_cpus only increases and updates both the active and the directory count', async () => {
      await act('cpu01', { action: 'start' });
      expect((await w.hv.describeGuest('CPU01'))?.active?.cpus).toBe(2);
      expect((await act('cpu01', { action: 'live_resize_cpus', cpu_cnt: 3 })).status).toBe(200);
      const state = await w.hv.describeGuest('CPU01');
      expect({ active: state?.active?.cpus, directory: state?.directory.cpus }).toEqual({ active: 3, directory: 3 });
      expectError(await act('cpu01', { action: 'live_resize_cpus', cpu_cnt: 2 }), 409, { rs: 2 });
    });

    it('refuses more CPUs than MACHINE ESA allows (409 rs4) and counts outside 1-64 (400)', async () => {
      expectError(await act('cpu01', { action: 'resize_cpus', cpu_cnt: 5 }), 409, { rs: 4 });
      expectError(await act('cpu01', { action: 'live_resize_cpus', cpu_cnt: 5 }), 409, { rs: 4 });
      expectError(await act('cpu01', { action: 'resize_cpus', cpu_cnt: 0 }), 400);
      expectError(await act('cpu01', { action: 'resize_cpus', cpu_cnt: 65 }), 400);
      expectError(await act('cpu01', { action: 'resize_cpus', cpu_cnt: '2' }), 400);
      expectError(await act('cpu01', { action: 'resize_cpus' }), 400);
      expect((await w.hv.describeGuest('CPU01'))?.directory.cpus).toBe(3);
    });
  });

  describe('memory resize', () => {
    beforeAll(() => w.createGuest('mem01', { memory: 1024, max_mem: '4G' }));

    it('resize_mem changes the directory storage, up or down, on or off', async () => {
      expect((await act('mem01', { action: 'resize_mem', size: '2g' })).status).toBe(200);
      expect((await w.hv.describeGuest('MEM01'))?.directory.memory).toBe('2G');
      expect((await act('mem01', { action: 'resize_mem', size: '512M' })).status).toBe(200);
      expect((await w.hv.describeGuest('MEM01'))?.directory.memory).toBe('512M');
    });

    it('live_resize_mem needs an active guest and only increases', async () => {
      expectError(await act('mem01', { action: 'live_resize_mem', size: '1G' }), 409, { rs: 1 });
      await act('mem01', { action: 'start' });
      expectError(await act('mem01', { action: 'live_resize_mem', size: '256M' }), 409, { rs: 18 });
      expect((await act('mem01', { action: 'live_resize_mem', size: '1G' })).status).toBe(200);
      expect((await w.hv.describeGuest('MEM01'))?.directory.memory).toBe('1G');
    });

    it('refuses more than the maximum storage (409 rs20) and malformed sizes (400)', async () => {
      expectError(await act('mem01', { action: 'resize_mem', size: '8G' }), 409, { rs: 20 });
      expectError(await act('mem01', { action: 'resize_mem', size: '10T' }), 400);
      expectError(await act('mem01', { action: 'resize_mem', size: '12345M' }), 400);
      expectError(await act('mem01', { action: 'resize_mem' }), 400);
    });
  });

  describe('register_vm and deregister_vm', () => {
    beforeAll(async () => {
      await w.hv.createGuest({ userid: 'ADOPT01', vcpus: 1, maxCpus: 2, memory: '512M', maxMemory: '2G' });
    });

    it('register_vm adopts an existing z/VM guest; deregister_vm leaves it on the host', async () => {
      expect((await w.call<string[]>('GET', '/guests')).body.output).not.toContain('ADOPT01');
      const res = await act('adopt01', { action: 'register_vm', meta: 'os_version=rhel8', net_set: '1' });
      expect(res.status).toBe(200);
      expect((await w.call<string[]>('GET', '/guests')).body.output).toContain('ADOPT01');
      expect((await w.call('GET', '/guests/adopt01/power_state')).body.output).toBe('off');
      expect((await act('adopt01', { action: 'register_vm', meta: 'm', net_set: '0' })).status).toBe(200);

      expect((await act('adopt01', { action: 'deregister_vm' })).status).toBe(200);
      expect((await w.call<string[]>('GET', '/guests')).body.output).not.toContain('ADOPT01');
      expect(await w.hv.describeGuest('ADOPT01')).toBeDefined();
    });

    it('register_vm of a userid unknown to z/VM is 404; meta and net_set are required', async () => {
      expectError(await act('nosuch', { action: 'register_vm', meta: 'm', net_set: '0' }), 404);
      expectError(await act('adopt01', { action: 'register_vm', meta: 'm' }), 400);
    });
  });

  describe('live_migrate_vm (a ZGuestAction)', () => {
    beforeAll(async () => {
      await w.createGuest('mig01');
    });

    it('needs a logged-on guest (409 rs1)', async () => {
      expectError(await act('mig01', { action: 'live_migrate_vm', destination: 'ZVMSIM2', operation: 'move', parms: {} }), 409, { rc: 409, rs: 1 });
    });

    it('test checks the move and leaves the guest running here', async () => {
      await act('mig01', { action: 'start' });
      const res = await act('mig01', { action: 'live_migrate_vm', destination: 'zvmsim2', operation: 'test', parms: { maxtotal: 60, forcearch: 'yes' } });
      expect(res.status).toBe(200);
      expect(res.body.output).toBe('');
      expect(await power('MIG01')).toBe('on');
      const actions = await w.app.store.list('ZGuestAction', { namespace: 'default' });
      expect(actions.items.map((a) => (a.status as { phase?: string }).phase)).toEqual(['Succeeded']);
    });

    it('answers the SMAPI error for a destination outside the SSI cluster', async () => {
      const res = await act('mig01', { action: 'live_migrate_vm', destination: 'NOWHERE', operation: 'move', parms: {} });
      expectError(res, 500, { overallRC: 8, rc: 4, rs: 3000 });
      expect(await power('MIG01')).toBe('on');
    });

    it('validates the body: destination pattern, operation move|test (or lgr_action), parms keys', async () => {
      expectError(await act('mig01', { action: 'live_migrate_vm', destination: 'TOOLONGNAME', operation: 'move' }), 400);
      expectError(await act('mig01', { action: 'live_migrate_vm', destination: 'ZVMSIM2', operation: 'jump' }), 400);
      expectError(await act('mig01', { action: 'live_migrate_vm', destination: 'ZVMSIM2' }), 400);
      expectError(await act('mig01', { action: 'live_migrate_vm', destination: 'ZVMSIM2', operation: 'test', parms: { bogus: 1 } }), 400);
    });

    it('move relocates the guest: it leaves this host and GET /guests, like feilong marks it migrated', async () => {
      const res = await act('mig01', { action: 'live_migrate_vm', destination: 'ZVMSIM2', lgr_action: 'move', parms: { immediate: 'yes' }, dest_zcc_userid: '' });
      expect(res.status).toBe(200);
      expect(await power('MIG01')).toBe('off');
      expect((await w.call('GET', '/guests/mig01/power_state_real')).body.output).toBe('off');
      expect((await w.call<string[]>('GET', '/guests')).body.output).not.toContain('MIG01');
      expectError(await w.call('GET', '/guests/mig01/info'), 404);
      expect((await guest('mig01')).metadata.annotations?.['zvm.dev/relocated-to']).toBe('ZVMSIM2');
    });
  });
});
