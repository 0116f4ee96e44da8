/**
 * What the reference's clients send and rely on, over real HTTP in standalone mode: the newer guest-create
 * fields become the reference's directory statements, cpu_share sets SHARE, a failed call leaves the guest
 * as it was (the next call is judged on its own), and absurd bodies stay below 500.
 */
import { jest } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ZGuest } from '../../../src/api/index.js';
import type { Standalone } from '../../../src/cmd/standalone.js';
import { buildImageHeader } from '../../../src/hypervisor/mgmt/index.js';
import { http, startTestStandalone, tempStateDir } from './helpers.js';

jest.setTimeout(120_000);

const tmp = tempStateDir();
let app: Standalone;
const call = <T = unknown>(method: string, path: string, body?: unknown) => http<T>(app.restUrl, method, path, body);
const directory = async (userid: string) => ((await call<{ user_direct: string[] }>('GET', `/guests/${userid}`)).body.output as { user_direct: string[] }).user_direct;
const guestSpec = async (name: string) => (await app.store.get<ZGuest>('ZGuest', { namespace: 'default', name }))!.spec;

beforeAll(async () => {
  app = await startTestStandalone(tmp.dir);
});
afterAll(async () => {
  await app.stop();
  tmp.cleanup();
});

describe('guest create with cschedule, cshare, rdomain and pcif', () => {
  it('writes the statements the reference writes for them, in its order', async () => {
    const res = await call('POST', '/guests', {
      guest: { userid: 'FULL01', vcpus: 2, memory: 2048, cschedule: 'POOL1', cshare: 'RELATIVE 300', rdomain: 'DOM1', pcif: '100:2a00' },
    });
    expect(res.status).toBe(200);
    const lines = await directory('FULL01');
    const at = (s: string) => lines.indexOf(s);
    expect(at('COMMAND SCHEDULE * WITHIN POOL POOL1')).toBeGreaterThan(at('COMMAND DEFINE CPU 01 TYPE IFL'));
    expect(at('SHARE RELATIVE 300')).toBeGreaterThan(at('COMMAND SCHEDULE * WITHIN POOL POOL1'));
    expect(at('COMMAND SET VMRELOCATE * DOMAIN DOM1')).toBeGreaterThan(at('SHARE RELATIVE 300'));
    expect(at('COMMAND ATTACH PCIF 100 * AS 2A00')).toBeGreaterThan(at('COMMAND SET VMRELOCATE * DOMAIN DOM1'));
    expect(lines.filter((l) => l.startsWith('SHARE'))).toEqual(['SHARE RELATIVE 300']);
    expect(await guestSpec('full01')).toMatchObject({ cpuPool: 'POOL1', share: 'RELATIVE 300', relocationDomain: 'DOM1', pciFunctions: ['100:2A00'] });
  });

  it.each([
    ['a share outside the reference pattern', { cshare: 'RELATIVE 0' }],
    ['an absolute share above 100%', { cshare: 'ABSOLUTE 101%' }],
    ['a pool name with a blank', { cschedule: 'POOL 1' }],
    ['a pcif without its vdev', { pcif: '100' }],
  ])('refuses %s with a 400 envelope and creates nothing', async (_what, extra) => {
    const res = await call('POST', '/guests', { guest: { userid: 'BAD01', vcpus: 1, memory: 512, ...extra } });
    expect(res.status).toBe(400);
    expect(res.body.overallRC).toBe(400);
    expect(await app.store.get('ZGuest', { namespace: 'default', name: 'bad01' })).toBeUndefined();
  });
});

describe('resize_cpus with cpu_share', () => {
  it('sets the CPU count and the SHARE statement; a later resize without it keeps the chosen share', async () => {
    await call('POST', '/guests', { guest: { userid: 'SHR01', vcpus: 1, memory: 512 } });
    expect((await directory('SHR01')).filter((l) => l.startsWith('SHARE'))).toEqual(['SHARE RELATIVE 100']);
    const res = await call('POST', '/guests/SHR01/action', { action: 'resize_cpus', cpu_cnt: 3, cpu_share: 'RELATIVE 450' });
    expect(res.status).toBe(200);
    let lines = await directory('SHR01');
    expect(lines.filter((l) => l.startsWith('COMMAND DEFINE CPU'))).toHaveLength(3);
    expect(lines.filter((l) => l.startsWith('SHARE'))).toEqual(['SHARE RELATIVE 450']);
    expect((await call('POST', '/guests/SHR01/action', { action: 'resize_cpus', cpu_cnt: 2 })).status).toBe(200);
    lines = await directory('SHR01');
    expect(lines.filter((l) => l.startsWith('COMMAND DEFINE CPU'))).toHaveLength(2);
    expect(lines.filter((l) => l.startsWith('SHARE'))).toEqual(['SHARE RELATIVE 450']);
    expect((await call('POST', '/guests/SHR01/action', { action: 'live_resize_cpus', cpu_cnt: 2, cpu_share: 'relative  9x' })).status).toBe(400);
  });
});

describe('grow_root_volume', () => {
  it('punches the grow-root script to the guest reader once per request and records it as handled', async () => {
    await call('POST', '/guests', { guest: { userid: 'GRW01', vcpus: 1, memory: 512, disk_list: [{ size: '1g', is_boot_disk: true }] } });
    expect((await call('POST', '/guests/GRW01/action', { action: 'start' })).status).toBe(200);
    const res = await call('POST', '/guests/GRW01/action', { action: 'grow_root_volume', os_version: 'rhel8.6' });
    expect({ status: res.status, errmsg: res.body.errmsg }).toEqual({ status: 200, errmsg: '' });
    const console1 = (await call<string>('POST', '/guests/GRW01/action', { action: 'get_console_output' })).body.output as string;
    expect(console1.match(/RDR FILE \d+ SENT FROM \S+ +PUN .*gpartvol\.sh/g)).toHaveLength(1);
    const g = await app.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'grw01' });
    expect(g!.status?.lastHandledGrowRootVolumeAt).toBe(g!.metadata.annotations?.['zvm.dev/grow-root-volume-requested-at']);
    expect(g!.metadata.annotations?.['zvm.dev/grow-root-volume-os-version']).toBe('rhel8.6');
    // a grow request does not log the guest off
    expect((await call('GET', '/guests/GRW01/power_state')).body.output).toBe('on');
    expect((await call('POST', '/guests/GRW01/action', { action: 'grow_root_volume' })).status).toBe(400);
    // os_version as every other body has it (the reference's os_version list): a release it does not name is refused
    expect((await call('POST', '/guests/GRW01/action', { action: 'grow_root_volume', os_version: 'centos7' })).status).toBe(400);
  });
});

describe('a failed REST call leaves the guest as it was', () => {
  it('after a deploy that fails, the spec no longer names the image and start succeeds', async () => {
    const files = join(tmp.dir, 'files');
    mkdirSync(files, { recursive: true });
    const bytes = Buffer.concat([buildImageHeader({ diskType: 'CKD', diskSizeUnits: '100:CYL', compressLevel: 0 }), Buffer.alloc(10_000, 7)]);
    writeFileSync(join(files, 'img.img'), bytes);
    const md5sum = createHash('md5').update(bytes).digest('hex');
    expect((await call('POST', '/images', { image: { image_name: 'img1', url: `file://${files}/img.img`, image_meta: { os_version: 'rhel8.6', md5sum } } })).status).toBe(200);
    await call('POST', '/guests', { guest: { userid: 'DEP01', vcpus: 1, memory: 512, disk_list: [{ size: '1g', is_boot_disk: true }] } });
    // the transport files live on a host that does not exist: the deploy fails in the controller
    const failed = await call('POST', '/guests/DEP01/action', { action: 'deploy', image: 'img1', transportfiles: '/var/cfgdrive.tgz', remotehost: 'nova@192.0.2.1' });
    expect(failed.status).toBeGreaterThanOrEqual(400);
    expect(failed.body.errmsg).not.toBe('');
    const spec = await guestSpec('dep01');
    expect(spec.image).toBeUndefined();
    expect(spec.imageDeploy).toBeUndefined();
    const started = await call('POST', '/guests/DEP01/action', { action: 'start' });
    expect({ status: started.status, errmsg: started.body.errmsg }).toEqual({ status: 200, errmsg: '' });
    expect((await call('GET', '/guests/DEP01/power_state')).body.output).toBe('on');
  });
});

describe('bodies no client should send stay below 500', () => {
  const deep = (n: number) => `{"guest": ${'['.repeat(n)}${']'.repeat(n)}}`;
  it.each([
    ['POST', '/guests'],
    ['POST', '/guests/FULL01/action'],
    ['DELETE', '/guests/volumes'],
    ['POST', '/images'],
  ])('%s %s with a body nested 100 000 levels deep answers 400', async (method, path) => {
    const res = await call(method, path, deep(100_000));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ overallRC: 400, rc: 400 });
    expect(res.body.errmsg).toMatch(/^Malformed JSON: nested deeper than/);
  });

  it('still reads a body nested a few levels deep (the reference clients send four)', async () => {
    expect((await call('POST', '/guests', deep(20))).status).toBe(400);
    expect((await call('POST', '/guests', deep(20))).body.errmsg).toMatch(/^ValidationError/);
  });
});
