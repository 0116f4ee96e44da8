/**
 * /images and the deploy/capture actions over real HTTP in standalone mode: the ZImage controller
 * and the ZGuest deploy step drive the mgmt adapter over SSH against the simulator's endpoint.
 * Path traversal in names and URLs answers a 400 envelope and leaves nothing behind.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ZGuest } from '../../../src/api/index.js';
import type { Standalone } from '../../../src/cmd/standalone.js';
import { buildImageHeader } from '../../../src/hypervisor/mgmt/index.js';
import { diskData, imageData, md5Of, zthinImage } from '../../wire/mgmt-helpers.js';
import { http, startTestStandalone, tempStateDir } from './helpers.js';

const tmp = tempStateDir();
const files = join(tmp.dir, 'files');
let app: Standalone;
let md5: string;

const repoDir = () => join(tmp.dir, 'mgmt/fs/var/lib/zvmsdk/images/netboot');
const repoTree = () => (existsSync(repoDir()) ? readdirSync(repoDir(), { recursive: true }).map(String).sort() : []);
const call = <T = unknown>(method: string, path: string, body?: unknown) => http<T>(app.restUrl, method, path, body);

beforeAll(async () => {
  app = await startTestStandalone(tmp.dir);
  mkdirSync(files, { recursive: true });
  const bytes = Buffer.concat([buildImageHeader({ diskType: 'CKD', diskSizeUnits: '100:CYL', compressLevel: 0 }), Buffer.alloc(100_000, 5)]);
  writeFileSync(join(files, 'rhel.img'), bytes);
  md5 = createHash('md5').update(bytes).digest('hex');
}, 30_000);

afterAll(async () => {
  await app.stop();
  tmp.cleanup();
});

const importBody = (name: string, url: string, extra: Record<string, unknown> = {}) => ({ image: { image_name: name, url, image_meta: { os_version: 'rhel8.6', ...extra } } });

describe('image routes', () => {
  it('imports an image, lists it in the named-field form, and refuses the name again', async () => {
    const created = await call('POST', '/images', importBody('rhel86', `file://${files}/rhel.img`, { md5sum: md5 }));
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ overallRC: 0, modID: null, rc: 0, rs: 0, errmsg: '', output: '' });

    const list = await call<Record<string, unknown>[]>('GET', '/images');
    expect(list.body.output).toEqual([{
      imagename: 'rhel86', imageosdistro: 'rhel8.6', md5sum: md5, disk_size_units: '100:CYL', image_size_in_bytes: String(512 + 100_000),
      type: 'rootonly', comments: null, last_access_time: expect.any(Number), image_path: '/var/lib/zvmsdk/images/netboot/rhel8.6/rhel86/0100',
    }]);
    expect((await call<unknown[]>('GET', '/images?imagename=RHEL86')).body.output).toHaveLength(1);
    expect((await call('GET', '/images?imagename=nosuch')).status).toBe(404);

    const again = await call('POST', '/images', importBody('rhel86', `file://${files}/rhel.img`));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ overallRC: 300, modID: 40, rs: 13 });
  });

  it('answers the root disk size and exports with both PUT forms', async () => {
    expect((await call('GET', '/images/rhel86/root_disk_size')).body.output).toBe('100:CYL');
    expect((await call('GET', '/images/nosuch/root_disk_size')).status).toBe(404);
    const out = await call('PUT', '/images/rhel86', { location: { dest_url: `file://${files}/out.img` } });
    expect(out.body.output).toEqual({ image_name: 'rhel86', image_path: `file://${files}/out.img`, os_version: 'rhel8.6', md5sum: md5, comments: null });
    expect(createHash('md5').update(readFileSync(join(files, 'out.img'))).digest('hex')).toBe(md5);
    const old = await call('PUT', '/images', { image: { image_name: 'rhel86', dest_url: `file://${files}/old.img` } });
    expect(old.status).toBe(200);
    expect(existsSync(join(files, 'old.img'))).toBe(true);
    expect((await call('PUT', '/images/nosuch', { location: { dest_url: `file://${files}/n.img` } })).status).toBe(404);
  });

  it.each([
    ['a name with ..', importBody('../evil', `file://${files}/rhel.img`)],
    ['a name with a slash', importBody('a/b', `file://${files}/rhel.img`)],
    ['.. in the URL', importBody('dots', `file://${files}/../../../etc/passwd`)],
    ['an encoded .. in the URL', importBody('enc', `file://${files}/%2e%2e/%2e%2e/etc/passwd`)],
    ['a file outside the allowed directories', importBody('passwd', 'file:///etc/passwd')],
  ])('refuses to import %s with a 400 envelope and touches nothing', async (_what, body) => {
    const before = repoTree();
    const res = await call('POST', '/images', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ rc: expect.any(Number), output: '' });
    expect(repoTree()).toEqual(before);
    const { items } = await app.store.list('ZImage');
    expect(items.map((i) => (i.spec as { imageName?: string }).imageName)).toEqual(['rhel86']);
  });

  it('refuses traversal in export targets and in names of other routes', async () => {
    expect((await call('PUT', '/images/rhel86', { location: { dest_url: 'file:///etc/zvm-x.img' } })).status).toBe(400);
    expect((await call('PUT', '/images/rhel86', { location: { dest_url: `file://${files}/../x.img` } })).status).toBe(400);
    expect(existsSync(join(tmp.dir, 'x.img'))).toBe(false);
    expect((await call('DELETE', '/images/..%2F..%2Fetc')).status).toBe(400);
    expect((await call('GET', '/images/..%2Fetc/root_disk_size')).status).toBe(400);
  });
});

describe('deploy and capture actions', () => {
  beforeAll(async () => {
    const res = await call('POST', '/guests', { guest: { userid: 'linux01', vcpus: 1, memory: 1024, disk_list: [{ size: '1g', is_boot_disk: true }] } });
    expect(res.status).toBe(200);
  }, 30_000);

  it('deploys an image onto the root disk (console shows it) and records it on the guest', async () => {
    const res = await call('POST', '/guests/linux01/action', { action: 'deploy', image: 'rhel86' });
    expect(res.body).toMatchObject({ overallRC: 0, output: '' });
    expect(res.status).toBe(200);
    // the console spool is read from a logged-on guest
    expect((await call('POST', '/guests/linux01/action', { action: 'start' })).status).toBe(200);
    const console = await call<string>('POST', '/guests/linux01/action', { action: 'get_console_output' });
    expect(console.body.output).toMatch(/UNPACKDISKIMAGE: image rhel86 \(100:CYL, md5 [0-9a-f]{32}\) written to disk 0100/);
    const guest = await app.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'linux01' });
    expect(guest?.status?.deployedImage).toBe('rhel86');
    expect(guest?.status?.conditions?.find((c) => c.type === 'ImageDeployed')?.status).toBe('True');
    expect((await call('POST', '/guests/linux01/action', { action: 'deploy', image: 'nosuch' })).status).toBe(404);
    expect((await call('POST', '/guests/linux01/action', { action: 'deploy', image: 'rhel86', transportfiles: '/tmp/../etc/shadow' })).status).toBe(400);
    // transport files come from the image directories only (400 before anything is written)
    const outside = await call('POST', '/guests/linux01/action', { action: 'deploy', image: 'rhel86', transportfiles: '/etc/passwd' });
    expect(outside.status).toBe(400);
    expect(outside.body.errmsg).toContain('outside the allowed directories');
    // a running guest's disk cannot be written
    expect((await call('POST', '/guests/linux01/action', { action: 'deploy', image: 'rhel86' })).status).toBe(409);
  });

  it('captures the (running) guest into a new image, refuses alldisks with 501, and deletes idempotently', async () => {
    const res = await call('POST', '/guests/linux01/action', { action: 'capture', image: 'cap1' });
    expect(res.status).toBe(200);
    expect((await call<string>('GET', '/guests/linux01/power_state_real')).body.output).toBe('on');
    const list = await call<{ imagename: string; type: string; imageosdistro: string }[]>('GET', '/images?imagename=cap1');
    expect(list.body.output).toEqual([expect.objectContaining({ imagename: 'cap1', type: 'rootonly', imageosdistro: 'rhel8.6' })]);
    const all = await call('POST', '/guests/linux01/action', { action: 'capture', image: 'cap2', capture_type: 'alldisks' });
    expect(all.status).toBe(501);
    expect((await call('DELETE', '/images/cap1')).status).toBe(200);
    expect((await call('DELETE', '/images/cap1')).status).toBe(200);
    expect((await call('GET', '/images?imagename=cap1')).status).toBe(404);
    expect(repoTree().some((p) => p.includes('cap1'))).toBe(false);
  });

  it('round-trips a real zthin image as the reference client does: PUT /files, import, deploy with transport files, capture, export, re-import', async () => {
    const data = diskData(200_000, 5);
    const image = zthinImage({ tag: 'xCAT CKD Disk Image:', size: 100, unit: 'CYL', level: 6, data });
    const upload = async (body: Buffer) => {
      const res = await fetch(`${app.restUrl}/files`, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(body) });
      return ((await res.json()) as { output: { dest_url: string; md5sum: string } }).output;
    };
    const up = await upload(image);
    expect(up.md5sum).toBe(md5Of(image));
    expect((await call('POST', '/images', importBody('real1', up.dest_url, { md5sum: up.md5sum }))).status).toBe(200);
    expect((await call('GET', '/images/real1/root_disk_size')).body.output).toBe('100:CYL');

    expect((await call('POST', '/guests/linux01/action', { action: 'stop' })).status).toBe(200);
    const cfg = await upload(Buffer.from('#cloud-config\n'));
    const deployed = await call('POST', '/guests/linux01/action', { action: 'deploy', image: 'real1', transportfiles: cfg.dest_url.slice('file://'.length) });
    expect(deployed.status).toBe(200);

    expect((await call('POST', '/guests/linux01/action', { action: 'capture', image: 'real1cap', compress_level: 9 })).status).toBe(200);
    const units = (await call<string>('GET', '/images/real1cap/root_disk_size')).body.output;
    expect(units).toMatch(/^[0-9]+:CYL$/);
    expect((await call('PUT', '/images/real1cap', { location: { dest_url: `file://${files}/real1cap.img` } })).status).toBe(200);
    const exported = readFileSync(join(files, 'real1cap.img'));
    expect(exported.subarray(0, 55).toString('latin1')).toBe(`xCAT CKD Disk Image:${units.replace(':', ' ').padStart(16)} HLen: 0055 GZIP: 9`);
    expect(imageData(exported)).toEqual(data);
    expect((await call('POST', '/images', importBody('real1again', `file://${files}/real1cap.img`))).status).toBe(200);
    expect((await call('GET', '/images/real1again/root_disk_size')).body.output).toBe(units);
  }, 120_000);
});
