import { silentLogger } from '../../../src/log.js';
import { createRestApp } from '../../../src/rest/index.js';
import { listenLocal } from './support/http.js';
import { aRestWorld, type RestWorld } from './support/world.js';

const create = (w: RestWorld, guest: Record<string, unknown>) => w.inject({ method: 'POST', url: '/guests', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ guest }) });
const action = (w: RestWorld, userid: string, body: unknown) => w.inject({ method: 'POST', url: `/guests/${userid}/action`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });

describe('REST guests over the store and the controller', () => {
  let w: RestWorld;
  beforeEach(async () => { w = await aRestWorld(); });
  afterEach(async () => { await w.close(); });

  it('creates a ZGuest per the conventions and answers the created disks', async () => {
    const res = await create(w, {
      userid: 'linux01', vcpus: 2, memory: 2048, user_profile: 'osdflt', max_cpu: 8, max_mem: '16g',
      disk_list: [{ size: '1g', is_boot_disk: true }, { size: '100M', format: 'ext3', disk_pool: 'FBA:fba1' }],
      comment_list: ['hello'], ipl_param: 'ABC',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      overallRC: 0, modID: null, rc: 0, rs: 0, errmsg: '',
      output: [
        { size: '1g', is_boot_disk: true, disk_pool: 'ECKD:POOL1', vdev: '0100', format: 'none' },
        { size: '100M', disk_pool: 'FBA:fba1', vdev: '0101', format: 'ext3' },
      ],
    });
    const g = await w.guest('linux01');
    expect(g?.spec).toMatchObject({
      userid: 'LINUX01', host: 'default', vcpus: 2, maxCpus: 8, memory: '2G', maxMemory: '16G', profile: 'OSDFLT',
      powerState: 'Stopped', comments: ['hello'], ipl: { device: '0100', param: 'ABC' },
    });
  });

  it('writes memory that is not a multiple of 1024 MB in M', async () => {
    expect((await create(w, { userid: 'A1', vcpus: 1, memory: 1000 })).statusCode).toBe(200);
    expect((await w.guest('a1'))?.spec.memory).toBe('1000M');
  });

  it('creates a guest without disk_list (the reference crashes there)', async () => {
    const res = await create(w, { userid: 'NODISK', vcpus: 1, memory: 1024 });
    expect(res.json()).toMatchObject({ overallRC: 0, output: [] });
  });

  it('lists, reads and deletes a managed guest', async () => {
    await create(w, { userid: 'LINUX02', vcpus: 1, memory: 1024 });
    await w.hv.createGuest({ userid: 'LINUX02', vcpus: 1, maxCpus: 32, memory: '1G', maxMemory: '64G' });
    expect((await w.inject({ method: 'GET', url: '/guests' })).json().output).toEqual(['LINUX02']);
    const direct = await w.inject({ method: 'GET', url: '/guests/linux02' });
    expect(direct.json().output.user_direct[0]).toBe('USER LINUX02 LBYONLY 1G 64G G');
    const masked = await w.inject({ method: 'GET', url: '/guests/linux02/user_direct' });
    expect(masked.json().output.user_direct[0]).toBe('USER LINUX02 ****** 1G 64G G ');
    const del = await w.inject({ method: 'DELETE', url: '/guests/LINUX02' });
    expect(del.statusCode).toBe(200);
    expect(await w.guest('linux02')).toBeUndefined();
  });

  it('answers a bad disk size 400 naming the request field and value, never the resource path', async () => {
    const res = await create(w, { userid: 'BADSIZE', vcpus: 1, memory: 1024, disk_list: [{ size: '1g' }, { size: 'abc', format: 'ext4' }] });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ overallRC: 100, modID: 400, rc: 100, rs: 3 });
    expect(body.errmsg).toMatch(/^Invalid API arg format, error: disk_list\[1\]\.size: 'abc' must match pattern/);
    expect(body.errmsg).not.toMatch(/\/spec\/|ZGuest/);
    expect(await w.guest('badsize')).toBeUndefined();
  });

  it('answers a second create of the same userid 409', async () => {
    await create(w, { userid: 'DUP1', vcpus: 1, memory: 1024 });
    const res = await create(w, { userid: 'dup1', vcpus: 1, memory: 1024 });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ overallRC: 409, modID: 10, rc: 409, rs: 1, errmsg: "Guest 'DUP1' already exists." });
  });

  it('answers a userid already defined on the host 409 and leaves no resource behind', async () => {
    w.stub.failures.set('TAKEN', { overallRC: 8, modID: 1, rc: 400, rs: 8, errmsg: 'image definition TAKEN already exists' });
    const res = await create(w, { userid: 'TAKEN', vcpus: 1, memory: 1024 });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ overallRC: 8, modID: 1, rc: 400, rs: 8 });
    expect(await w.guest('taken')).toBeUndefined();
  });

  it('answers 404 for an unmanaged guest and deletes an unknown userid idempotently', async () => {
    const res = await w.inject({ method: 'GET', url: '/guests/NOSUCH/power_state' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ overallRC: 404, modID: 10, rc: 404, rs: 1, errmsg: "Guest 'NOSUCH' does not exist.", output: '' });
    expect((await w.inject({ method: 'DELETE', url: '/guests/NOSUCH' })).statusCode).toBe(200);
  });

  it('answers 404 when deleting a userid z/VM knows but nobody manages', async () => {
    await w.hv.createGuest({ userid: 'ALIEN', vcpus: 1, maxCpus: 32, memory: '1G', maxMemory: '64G' });
    expect((await w.inject({ method: 'DELETE', url: '/guests/ALIEN' })).statusCode).toBe(404);
  });

  it('turns power actions into spec.powerState and waits for the observed state', async () => {
    await create(w, { userid: 'PWR1', vcpus: 1, memory: 1024 });
    await w.hv.createGuest({ userid: 'PWR1', vcpus: 1, maxCpus: 32, memory: '1G', maxMemory: '64G' });
    expect((await action(w, 'PWR1', { action: 'start' })).json()).toMatchObject({ overallRC: 0, output: '' });
    expect((await w.guest('pwr1'))?.status?.powerState).toBe('on');
    await w.hv.start('PWR1');
    expect((await action(w, 'PWR1', { action: 'pause' })).statusCode).toBe(200);
    expect((await w.guest('pwr1'))?.spec.powerState).toBe('Paused');
    expect((await action(w, 'PWR1', { action: 'softstop', timeout: 10 })).statusCode).toBe(200);
    expect((await w.guest('pwr1'))?.spec.powerState).toBe('Stopped');
  });

  it('answers pause of a logged-off guest 409 with the reference codes', async () => {
    await create(w, { userid: 'OFF1', vcpus: 1, memory: 1024 });
    await w.hv.createGuest({ userid: 'OFF1', vcpus: 1, maxCpus: 32, memory: '1G', maxMemory: '64G' });
    const res = await action(w, 'OFF1', { action: 'pause' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ overallRC: 300, modID: 10, rc: 300, rs: 5 });
  });

  it('acknowledges reboot through the annotation token', async () => {
    await create(w, { userid: 'RB1', vcpus: 1, memory: 1024 });
    expect((await action(w, 'RB1', { action: 'reboot' })).statusCode).toBe(200);
    const g = await w.guest('rb1');
    expect(g?.status?.lastHandledRebootAt).toBe(g?.metadata.annotations?.['zvm.dev/reboot-requested-at']);
  });

  it('answers bad actions 400 in the reference wording', async () => {
    await create(w, { userid: 'ACT1', vcpus: 1, memory: 1024 });
    expect((await action(w, 'ACT1', {})).json()).toMatchObject({ rs: 400, errmsg: 'action not exist or is empty' });
    expect((await action(w, 'ACT1', { action: 'fly' })).json()).toMatchObject({ rs: 400, errmsg: 'action fly is invalid' });
    const res = await action(w, 'ACT1', { action: 'resize_cpus', cpu_cnt: '2' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errmsg).toBe("ValidationError: Validation error: Invalid input for field/attribute cpu_cnt. Value: 2. '2' is not of type 'integer'");
  });

  it('answers an operation that outlives the operation timeout 202 "still running" while the change stays requested', async () => {
    await create(w, { userid: 'SLOW1', vcpus: 1, memory: 1024 });
    w.stub.paused = true;
    const quick = await aRestWorldSharing(w);
    const res = await quick({ action: 'start' });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ overallRC: 202, modID: 120, rc: 202, rs: 1 });
    expect(res.json().errmsg).toMatch(/^Still running after 0 s: guest 'SLOW1' to be on\. .*GET \/guests\/SLOW1 shows how it ends/);
    expect((await w.guest('slow1'))?.spec.powerState).toBe('Running');
  });
});

describe('a guest create that outlives the operation timeout', () => {
  let w: RestWorld;
  beforeAll(async () => { w = await aRestWorld({ operationTimeoutMs: 200 }); });
  afterAll(async () => { await w.close(); });

  it('answers 202 "still running"; the guest is listed and GET of it says it is being created, not 404', async () => {
    w.stub.paused = true;
    const res = await create(w, { userid: 'late01', vcpus: 1, memory: 1024 });
    expect(res.statusCode).toBe(202);
    expect(res.json().errmsg).toMatch(/^Still running after 0 s: guest 'LATE01' to be provisioned\. .*GET \/guests\/LATE01 shows how it ends\.$/);
    expect((await w.inject({ method: 'GET', url: '/guests' })).json().output).toContain('LATE01');
    const got = await w.inject({ method: 'GET', url: '/guests/late01' });
    expect(got.statusCode).toBe(202);
    expect(got.json()).toEqual({ overallRC: 202, modID: 120, rc: 202, rs: 2, errmsg: "In progress: guest 'LATE01' is being created; GET /guests lists it.", output: '' });
  });
});

/** A second app on the same store with a 200 ms operation timeout, to see one pass quickly. */
async function aRestWorldSharing(w: RestWorld) {
  const app = createRestApp({ store: w.store, hypervisors: { forHost: () => w.hv }, log: silentLogger(), config: { operationTimeoutMs: 200 } });
  const inject = await listenLocal(app);
  return async (body: unknown) => {
    try {
      return await inject({ method: 'POST', url: '/guests/SLOW1/action', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    } finally {
      await app.close();
    }
  };
}
