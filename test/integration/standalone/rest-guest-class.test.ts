/**
 * POST /guests naming a ZGuestClass (our extension of the feilong interface), over real HTTP against
 * standalone mode: the class gives what the request leaves out, the request's own fields win, reads
 * answer the resolved size, and an unknown class or a classless request without a size is a 4xx.
 */
import { API_VERSION, type ZGuest, type ZGuestClass } from '../../../src/api/index.js';
import { expectError } from './guest-support.js';
import { http, standaloneForSuite, waitFor } from './helpers.js';

const smallClass: ZGuestClass = {
  apiVersion: API_VERSION,
  kind: 'ZGuestClass',
  metadata: { name: 'small' },
  spec: { vcpus: 2, memory: '1G', maxMemory: '4G', disks: [{ size: '1G', boot: true }, { size: '256M', format: 'xfs' }] },
};

describe('standalone: REST-created guests from a class', () => {
  const suite = standaloneForSuite({}, 60_000);
  const call = <T = unknown>(method: string, path: string, body?: unknown) => http<T>(suite.app.restUrl, method, path, body);
  const stored = (userid: string) => suite.app.store.get<ZGuest>('ZGuest', { namespace: 'default', name: userid });

  beforeAll(async () => {
    await suite.app.store.create(smallClass);
  });

  it('takes vcpus, memory and disks from the class; the ZGuest names it and records its revision', async () => {
    const res = await call<{ vdev: string; size: string }[]>('POST', '/guests', { guest: { userid: 'cls01', class: 'small' } });
    expect(res.status).toBe(200);
    expect(res.body.output.map((d) => d.size)).toEqual(['1G', '256M']);
    expect(res.body.output.every((d) => /^[0-9A-F]{4}$/.test(d.vdev))).toBe(true);
    const guest = await stored('cls01');
    expect(guest?.spec).toMatchObject({ userid: 'CLS01', class: 'small' });
    // the class decides: nothing the request left out is pinned in the spec
    expect(guest?.spec.vcpus).toBeUndefined();
    expect(guest?.spec.memory).toBeUndefined();
    expect(guest?.spec.maxMemory).toBeUndefined();
    expect(guest?.status?.class).toMatchObject({ name: 'small', revision: 1 });
    const info = await call<Record<string, unknown>>('GET', '/guests/cls01/info');
    expect(info.body.output).toMatchObject({ power_state: 'off', num_cpu: 2, max_mem_kb: 4 * 1024 * 1024 });
    const direct = await call<{ user_direct: string[] }>('GET', '/guests/cls01');
    expect(direct.body.output.user_direct[0]).toMatch(/^USER CLS01 \S+ 1G 4G /);
  });

  it('lets the request override the class', async () => {
    expect((await call('POST', '/guests', { guest: { userid: 'cls02', class: 'small', vcpus: 3, max_mem: '2G' } })).status).toBe(200);
    expect((await stored('cls02'))?.spec).toMatchObject({ class: 'small', vcpus: 3, maxMemory: '2G' });
    const info = await call<Record<string, unknown>>('GET', '/guests/cls02/info');
    expect(info.body.output).toMatchObject({ num_cpu: 3, max_mem_kb: 2 * 1024 * 1024 });
  });

  it('answers 404 for an unknown class and writes nothing', async () => {
    expectError(await call('POST', '/guests', { guest: { userid: 'cls03', class: 'nosuch' } }), 404, { overallRC: 404, modID: 10, errmsg: "Guest class 'nosuch' does not exist." });
    expect(await stored('cls03')).toBeUndefined();
    expectError(await call('GET', '/guests/cls03/info'), 404);
  });

  it('answers 400 when neither the class nor the request gives the memory, and writes nothing', async () => {
    await suite.app.store.create<ZGuestClass>({ apiVersion: API_VERSION, kind: 'ZGuestClass', metadata: { name: 'cpu-only' }, spec: { vcpus: 1 } });
    const res = await call('POST', '/guests', { guest: { userid: 'cls05', class: 'cpu-only' } });
    expectError(res, 400, { overallRC: 100 });
    expect(res.body.errmsg).toContain('memory set by neither the spec nor ZGuestClass cpu-only');
    expect(await stored('cls05')).toBeUndefined();
    expect((await call('POST', '/guests', { guest: { userid: 'cls05', class: 'cpu-only', memory: 512 } })).status).toBe(200);
  });

  it('names a directory profile the host lacks (the user guide\'s WEBPROF) and says what to do, in REST and in Synced', async () => {
    await suite.app.store.create<ZGuestClass>({ apiVersion: API_VERSION, kind: 'ZGuestClass', metadata: { name: 'web-small' }, spec: { vcpus: 1, memory: '1G', profile: 'WEBPROF' } });
    const res = await call('POST', '/guests', { guest: { userid: 'web01', class: 'web-small' } });
    // the reference's answer to Image_Create_DM 436/4 (docs/rest-interface.md §3.1), with the way out
    expectError(res, 404, { overallRC: 404, modID: 10, rc: 404, rs: 1 });
    expect(res.body.errmsg).toMatch(/^Profile 'WEBPROF' does not exist\. Create the directory profile on z\/VM, or name an existing one in user_profile/);
    expect(await stored('web01')).toBeUndefined();

    await suite.app.store.create<ZGuest>({ apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name: 'web02', namespace: 'default' }, spec: { userid: 'WEB02', class: 'web-small' } });
    const synced = await waitFor(async () => (await stored('web02'))?.status?.conditions?.find((c) => c.type === 'Synced' && c.status === 'False'));
    expect(synced.message).toMatch(/directory profile WEBPROF does not exist on host default .*create profile WEBPROF on z\/VM, or name an existing profile in spec\.profile of the guest or of its ZGuestClass web-small/);
    expect(synced.message).not.toMatch(/^[^:]*: rc 436 rs 4/);
  });

  it('still requires vcpus and memory without a class, in the reference\'s words', async () => {
    const res = await call('POST', '/guests', { guest: { userid: 'cls04', memory: 512 } });
    expectError(res, 400);
    expect(JSON.stringify(res.body)).toContain("'vcpus' is a required property");
    expect(await stored('cls04')).toBeUndefined();
  });
});
