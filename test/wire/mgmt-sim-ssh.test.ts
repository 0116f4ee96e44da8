/**
 * The mgmt adapter over SSH against the simulator's management-guest endpoint: vmcp, import from
 * a local file, http and a remote host (SFTP), md5 and header checks, export, deploy with
 * transport files, capture, delete, and hostile names and URLs that touch nothing.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ImageError, type MgmtOps } from '../../src/hypervisor/image-port.js';
import { createInProcessCaller } from '../../src/hypervisor/smapi/in-process-caller.js';
import { createMgmtOps } from '../../src/hypervisor/mgmt/index.js';
import type { Hypervisor } from '../../src/hypervisor/port.js';
import { createSimHost, type SimHost } from '../../src/hypervisor/sim/index.js';
import { queryPchids } from '../../src/hypervisor/mgmt/pchids.js';
import { silentLogger } from '../../src/log.js';
import { startSimSshServer, type SimSshServer } from '../../src/hypervisor/sim/ssh/index.js';
import { createSmapiHypervisor } from '../../src/hypervisor/zvm/hypervisor.js';
import { clientKeys, diskData, imageBytes, imageData, md5Of, tempDir, writeImage, zthinImage } from './mgmt-helpers.js';

const keys = clientKeys();
const tmp = tempDir('zvm-mgmt-sim-');
const local = join(tmp.dir, 'local');
let sim: SimHost;
let hv: Hypervisor;
let ssh: SimSshServer;
let mgmt: MgmtOps;
let http: Server;
let httpBase: string;

beforeAll(async () => {
  mkdirSync(local, { recursive: true });
  sim = createSimHost();
  hv = createSmapiHypervisor({ hostName: 'sim', caller: createInProcessCaller({ handler: sim }) });
  ssh = await startSimSshServer({ sim, dataDir: join(tmp.dir, 'mgmt'), username: 'zcc', password: 'pw', authorizedKeys: [keys.publicKey] });
  mgmt = createMgmtOps({
    endpoint: { host: '127.0.0.1', port: ssh.port, username: 'zcc', privateKey: keys.privateKey, hostKeySha256: ssh.hostKeySha256 },
    repository: '/var/lib/zvmsdk/images',
    allowedDirs: [local],
    remoteHostAuth: { port: ssh.port, privateKey: keys.privateKey, hostKeys: [ssh.hostKeySha256] },
  });
  const served = imageBytes({ seed: 3 });
  const big = imageBytes({ seed: 4, level: 0, bodyBytes: 600_000 });
  http = createServer((req, res) => {
    const port = (http.address() as AddressInfo).port;
    const redirects: Record<string, string> = { '/redir1': '/img.raw', '/redir2': '/redir1', '/offsite': `http://localhost:${port}/img.raw` };
    if (redirects[req.url ?? '']) return void res.writeHead(302, { location: redirects[req.url!]! }).end();
    if (req.url === '/big') return void res.writeHead(200, { 'content-length': big.length }).end(big);
    // no Content-Length: the size is only known while streaming
    if (req.url === '/big-chunked') return void res.writeHead(200).end(big);
    if (req.url !== '/img.raw') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-length': served.length });
    res.end(served);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
  httpBase = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  await hv.createGuest({ userid: 'LINUX01', vcpus: 1, maxCpus: 2, memory: '1G', maxMemory: '2G' });
  await hv.addDisk('LINUX01', { vdev: '0100', pool: 'ECKD:POOL1', size: '1G' });
});

afterAll(async () => {
  await mgmt.close();
  await ssh.close();
  await new Promise((r) => http.close(r));
  await sim.close();
  tmp.cleanup();
});

const repoTree = () => readdirSync(join(ssh.fsRoot, 'var/lib/zvmsdk/images/netboot'), { recursive: true }).map(String).sort();

describe('vmcp on the simulated management guest', () => {
  it('answers q userid with its own userid and the system name', async () => {
    expect(await mgmt.vmcp('q userid')).toEqual({ exitCode: 0, output: 'OPNCLOUD AT ZVMSIM\n' });
  });

  it('reports a logged-off guest with HCPCQU045E first and a logged-on one as DSC', async () => {
    const off = await mgmt.vmcp('q user linux01');
    expect(off.exitCode).toBe(1);
    expect(off.output).toMatch(/^HCPCQU045E LINUX01 not logged on\nError: non-zero CP response for command 'Q USER LINUX01': #45/);
    await hv.start('LINUX01');
    expect(await mgmt.vmcp('query user LINUX01')).toEqual({ exitCode: 0, output: 'LINUX01  - DSC\n' });
    await hv.stop('LINUX01');
    expect((await mgmt.vmcp('q nosuch')).output).toMatch(/^HCPCQV003E Invalid option - NOSUCH/);
  });

  it('answers QUERY CHPID xx PCHID from the FCP inventory, and queryPchids reads it as feilong does', async () => {
    expect(await mgmt.vmcp('query chpid 27 pchid')).toEqual({ exitCode: 0, output: 'Path 27 is associated with physical channel 02E4\n' });
    expect(await mgmt.vmcp('query chpid 48 pchid')).toEqual({ exitCode: 0, output: 'Path 48 is not associated with a physical channel\n' });
    expect((await mgmt.vmcp('query chpid XYZ pchid')).output).toMatch(/^HCPQPA846E Invalid channel path identifier\./);
    const pchids = await queryPchids(mgmt, ['27', '28', '48'], silentLogger());
    expect([...pchids]).toEqual([['27', '02E4'], ['28', '0264']]);
  });
});

describe('image import, export and delete through SFTP', () => {
  it('imports a local file with its md5, header units and size, and refuses the same name again', async () => {
    const bytes = imageBytes();
    const md5 = writeImage(join(local, 'rhel.img'), bytes);
    const progress: number[] = [];
    const rec = await mgmt.importImage({ name: 'rhel86', url: `file://${local}/rhel.img`, osVersion: 'RHEL8.6', md5sum: md5 }, { onProgress: (p) => progress.push(p.bytes) });
    expect(rec).toMatchObject({ name: 'rhel86', osVersion: 'rhel8.6', md5sum: md5, diskSizeUnits: '100:CYL', diskType: 'CKD', sizeBytes: bytes.length, type: 'rootonly', comments: null });
    expect(rec.path).toBe('/var/lib/zvmsdk/images/netboot/rhel8.6/rhel86/0100');
    expect(progress.at(-1)).toBe(bytes.length);
    expect(md5Of(readFileSync(join(ssh.fsRoot, rec.path)))).toBe(md5);
    await expect(mgmt.importImage({ name: 'RHEL86', url: `file://${local}/rhel.img`, osVersion: 'rhel8.6' })).rejects.toMatchObject({ rc: 300, rs: 13 });
  });

  it('imports over http and from a remote host through SFTP', async () => {
    const viaHttp = await mgmt.importImage({ name: 'fromhttp', url: `${httpBase}/img.raw`, osVersion: 'sles15', diskType: 'DASD' });
    expect(viaHttp).toMatchObject({ md5sum: md5Of(imageBytes({ seed: 3 })), comments: "{'disk_type': 'DASD'}" });
    mkdirSync(join(ssh.fsRoot, 'remote'), { recursive: true });
    const md5 = writeImage(join(ssh.fsRoot, 'remote/fba.img'), imageBytes({ type: 'FBA' }));
    const remote = await mgmt.importImage({ name: 'fromremote', url: 'file:///remote/fba.img', remoteHost: 'zcc@127.0.0.1', osVersion: 'ubuntu22' });
    expect(remote).toMatchObject({ md5sum: md5, diskSizeUnits: '2048:BLK', diskType: 'FBA' });
    await expect(mgmt.importImage({ name: 'nohttp', url: `${httpBase}/missing`, osVersion: 'sles15' })).rejects.toMatchObject({ rs: 9 });
  });

  it('rejects a wrong md5, a header without units and a bad disk type, leaving no folder behind', async () => {
    const md5 = writeImage(join(local, 'x.img'), imageBytes());
    const wrong = md5.replace(/^./, md5[0] === '0' ? '1' : '0');
    await expect(mgmt.importImage({ name: 'badmd5', url: `file://${local}/x.img`, osVersion: 'rhel9', md5sum: wrong })).rejects.toMatchObject({ rs: 4 });
    writeFileSync(join(local, 'plain.img'), Buffer.alloc(2048, 1));
    await expect(mgmt.importImage({ name: 'noheader', url: `file://${local}/plain.img`, osVersion: 'rhel9' })).rejects.toMatchObject({ rs: 6 });
    const badType = imageBytes();
    badType.write('XYZ', 5, 'latin1'); // "xCAT XYZ Disk Image:" names neither CKD nor FBA
    writeFileSync(join(local, 'type.img'), badType);
    await expect(mgmt.importImage({ name: 'badtype', url: `file://${local}/type.img`, osVersion: 'rhel9' })).rejects.toMatchObject({ rs: 7 });
    expect(repoTree().some((p) => p.startsWith('rhel9'))).toBe(true); // the os folder may stay …
    expect(repoTree().filter((p) => p.startsWith('rhel9/'))).toEqual([]); // … but no image folder
  });

  it('exports to an allowed local path and to a remote host', async () => {
    const progress: { bytes: number; total?: number }[] = [];
    const out = await mgmt.exportImage({ name: 'rhel86', destUrl: `file://${local}/out.img` }, { onProgress: (p) => progress.push(p) });
    expect(out).toEqual({ name: 'rhel86', path: `file://${local}/out.img`, osVersion: 'rhel8.6', md5sum: md5Of(readFileSync(join(local, 'out.img'))), comments: null });
    // counted as it streams out of the repository; the total is the repository file's size (SFTP stat)
    const size = statSync(join(local, 'out.img')).size;
    expect(progress.at(-1)).toEqual({ bytes: size, total: size });
    await mgmt.exportImage({ name: 'rhel86', destUrl: 'file:///remote/copy.img', remoteHost: 'zcc@127.0.0.1' });
    expect(md5Of(readFileSync(join(ssh.fsRoot, 'remote/copy.img')))).toBe(out.md5sum);
    await expect(mgmt.exportImage({ name: 'nosuch', destUrl: `file://${local}/n.img` })).rejects.toMatchObject({ rs: 20 });
  });

  it('lists images with names, units and access times, and deletes idempotently', async () => {
    const names = (await mgmt.listImages()).map((r) => r.name);
    expect(names).toEqual(['fromhttp', 'fromremote', 'rhel86']);
    expect((await mgmt.describeImage('FROMHTTP'))?.lastAccessTime).toBeGreaterThan(0);
    await mgmt.deleteImage('fromhttp');
    await mgmt.deleteImage('fromhttp');
    expect(await mgmt.describeImage('fromhttp')).toBeUndefined();
  });
});

describe('http(s) imports within the configured limits', () => {
  let limited: MgmtOps;
  beforeAll(() => {
    limited = createMgmtOps({
      endpoint: { host: '127.0.0.1', port: ssh.port, username: 'zcc', privateKey: keys.privateKey, hostKeySha256: ssh.hostKeySha256 },
      repository: '/var/lib/zvmsdk/images',
      http: { maxBytes: 400_000, maxRedirects: 1, allowedHosts: ['127.0.0.1'] },
    });
  });
  afterAll(() => limited.close());

  it('follows one redirect and reports progress up to the total', async () => {
    const progress: { bytes: number; total?: number }[] = [];
    const rec = await limited.importImage({ name: 'redirected', url: `${httpBase}/redir1`, osVersion: 'sles15' }, { onProgress: (p) => progress.push(p) });
    expect(rec.md5sum).toBe(md5Of(imageBytes({ seed: 3 })));
    expect(progress.at(-1)).toEqual({ bytes: rec.sizeBytes, total: rec.sizeBytes });
  });

  it.each([
    ['an announced size over the cap', '/big', /larger than the limit of 400000 bytes/],
    ['a streamed size over the cap', '/big-chunked', /larger than the limit of 400000 bytes/],
    ['more redirects than allowed', '/redir2', /more than 1 redirects/],
    ['a redirect to a host not in the allow-list', '/offsite', /host localhost is not in the allowed hosts/],
  ])('refuses %s with image rs9 and leaves no partial image', async (_what, path, message) => {
    const before = repoTree();
    await expect(limited.importImage({ name: 'limited', url: `${httpBase}${path}`, osVersion: 'sles15' })).rejects.toMatchObject({ rc: 300, rs: 9, message: expect.stringMatching(message) });
    expect(repoTree().filter((p) => p.includes('limited'))).toEqual([]);
    expect(repoTree()).toEqual(before);
  });

  it('refuses a host outside the allow-list before connecting', async () => {
    const url = httpBase.replace('127.0.0.1', 'localhost');
    await expect(limited.importImage({ name: 'limited', url: `${url}/img.raw`, osVersion: 'sles15' })).rejects.toMatchObject({ rs: 9 });
  });
});

describe('hostile names and URLs touch nothing', () => {
  it.each([
    ['a name with ..', { name: '../evil', url: `file://${local}/rhel.img` }],
    ['a name with a slash', { name: 'a/b', url: `file://${local}/rhel.img` }],
    ['a NUL byte', { name: 'nul', url: `file://${local}/rhel.img\0x` }],
    ['a path outside the allowed directories', { name: 'passwd', url: 'file:///etc/passwd' }],
    ['.. in the URL', { name: 'dots', url: `file://${local}/../../etc/passwd` }],
    ['an encoded ..', { name: 'enc', url: `file://${local}/%2e%2e/%2e%2e/etc/passwd` }],
    ['a relative file URL', { name: 'rel', url: 'file://etc/passwd' }],
  ])('refuses %s', async (_what, req) => {
    const before = repoTree();
    await expect(mgmt.importImage({ ...req, osVersion: 'rhel9' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(repoTree()).toEqual(before);
  });

  it('refuses a symlink inside the allowed directory that points outside it', async () => {
    symlinkSync('/etc/hostname', join(local, 'link.img'));
    await expect(mgmt.importImage({ name: 'link', url: `file://${local}/link.img`, osVersion: 'rhel9' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(mgmt.exportImage({ name: 'rhel86', destUrl: 'file:///etc/zvm-export.img' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('refuses an export through a dangling symlink and writes nothing outside', async () => {
    const outside = join(tmp.dir, 'outside');
    mkdirSync(outside, { recursive: true });
    symlinkSync(join(outside, 'planted.img'), join(local, 'dangling.img'));
    await expect(mgmt.exportImage({ name: 'rhel86', destUrl: `file://${local}/dangling.img` })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(readdirSync(outside)).toEqual([]);
    // a symlinked directory on the way out is refused as well
    symlinkSync(outside, join(local, 'outdir'));
    await expect(mgmt.exportImage({ name: 'rhel86', destUrl: `file://${local}/outdir/x.img` })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(readdirSync(outside)).toEqual([]);
  });

  it('refuses an os version that would climb out of the repository', async () => {
    await expect(mgmt.importImage({ name: 'os', url: `file://${local}/rhel.img`, osVersion: '../..' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('deploy and capture on the simulated guest', () => {
  it('addresses the image file directly when its OS version is known', async () => {
    await mgmt.deployImage({ userid: 'LINUX01', image: 'rhel86', vdev: '0100', osVersion: 'rhel8.6' });
    expect(sim.consoleOf('LINUX01') ?? '').toMatch(/UNPACKDISKIMAGE: image rhel86 .* written to disk 0100/);
  });

  it('writes the image to the root disk, punches transport files from a remote host, and captures it back', async () => {
    writeFileSync(join(ssh.fsRoot, 'remote/cfgdrive.tgz'), Buffer.alloc(1000, 2));
    await mgmt.deployImage({ userid: 'linux01', image: 'rhel86', vdev: '0100', transportFiles: '/remote/cfgdrive.tgz', remoteHost: 'zcc@127.0.0.1' });
    const console = sim.consoleOf('LINUX01') ?? '';
    expect(console).toMatch(/UNPACKDISKIMAGE: image rhel86 \(100:CYL, md5 [0-9a-f]{32}\) written to disk 0100/);
    expect(console).toMatch(/RDR FILE 0001 SENT FROM OPNCLOUD PUN WAS 0001 RECS 0013 CPY {2}001 A NOHOLD NOKEEP cfgdrive.tgz/);
    expect(readdirSync(join(ssh.fsRoot, 'var/lib/zvmsdk/images/transport'))).toEqual([]);

    const sizes: { bytes: number; total?: number }[] = [];
    const captured = await mgmt.captureImage({ userid: 'LINUX01', image: 'cap1', vdev: '0100', captureType: 'rootonly', compressLevel: 6, osVersion: 'rhel8.6' }, { onProgress: (p) => sizes.push(p) });
    expect(sizes).toEqual([{ bytes: captured.sizeBytes, total: captured.sizeBytes }]);
    const disk = sim.minidisk('LINUX01', '0100')!;
    expect(captured).toMatchObject({ name: 'cap1', type: 'rootonly', diskType: 'CKD', diskSizeUnits: `${disk.size}:CYL` });
    const original = readFileSync(join(ssh.fsRoot, '/var/lib/zvmsdk/images/netboot/rhel8.6/rhel86/0100'));
    const copy = readFileSync(join(ssh.fsRoot, captured.path));
    // zthin's header for this disk, then the same disk contents gzipped at the requested level
    expect(copy.subarray(0, 512).toString('latin1')).toBe(`xCAT CKD Disk Image:${`${disk.size} CYL`.padStart(16)} HLen: 0055 GZIP: 6`.padEnd(512));
    expect(md5Of(imageData(copy))).toBe(md5Of(imageData(original)));
  });

  it('punches transport files from the image directories, and refuses any other local path', async () => {
    writeFileSync(join(local, 'cfg.tgz'), Buffer.alloc(300, 4));
    const progress: { bytes: number; total?: number }[] = [];
    await mgmt.deployImage({ userid: 'LINUX01', image: 'rhel86', vdev: '0100', transportFiles: join(local, 'cfg.tgz') }, { onProgress: (p) => progress.push(p) });
    // the image file's size from the repository (unpackdiskimage counts nothing), then the transport file's bytes on top
    const size = statSync(join(ssh.fsRoot, '/var/lib/zvmsdk/images/netboot/rhel8.6/rhel86/0100')).size;
    expect(progress).toEqual([{ bytes: 0, total: size }, { bytes: size, total: size }, { bytes: size + 300, total: size + 300 }]);
    expect(sim.consoleOf('LINUX01') ?? '').toMatch(/PUN WAS \d+ RECS \d+ CPY {2}001 A NOHOLD NOKEEP cfg.tgz/);
    // a file the SSH user can read on the management guest is not a transport file
    writeFileSync(join(ssh.fsRoot, 'secret.txt'), 'secret');
    for (const path of ['/secret.txt', '/etc/passwd']) {
      await expect(mgmt.deployImage({ userid: 'LINUX01', image: 'rhel86', vdev: '0100', transportFiles: path })).rejects.toMatchObject({ rs: 4, message: expect.stringContaining('outside the allowed directories') });
    }
    symlinkSync('/etc/hostname', join(local, 'cfglink.tgz'));
    await expect(mgmt.deployImage({ userid: 'LINUX01', image: 'rhel86', vdev: '0100', transportFiles: join(local, 'cfglink.tgz') })).rejects.toMatchObject({ rs: 4 });
    expect(readdirSync(join(ssh.fsRoot, 'var/lib/zvmsdk/images/transport'))).toEqual([]);
  });

  it('makes the transport folder again when it was removed behind its back (it is made once, not asked for per deploy)', async () => {
    writeFileSync(join(local, 'cfg2.tgz'), Buffer.alloc(200, 5));
    const transport = join(ssh.fsRoot, 'var/lib/zvmsdk/images/transport');
    rmSync(transport, { recursive: true, force: true });
    await mgmt.deployImage({ userid: 'LINUX01', image: 'rhel86', vdev: '0100', transportFiles: join(local, 'cfg2.tgz') });
    expect(sim.consoleOf('LINUX01') ?? '').toMatch(/PUN WAS \d+ RECS \d+ CPY {2}001 A NOHOLD NOKEEP cfg2.tgz/);
    expect(readdirSync(transport)).toEqual([]);
  });

  it('deploys and captures an FBA image (zthin FBA header, gzip level 1) and re-imports the capture', async () => {
    await hv.addDisk('LINUX01', { vdev: '0201', pool: 'FBA:POOL2', size: '1G' });
    const disk = sim.minidisk('LINUX01', '0201')!;
    const data = diskData(50_000, 11);
    const md5 = writeImage(join(local, 'fba.img'), zthinImage({ tag: 'xCAT FBA Disk Image:', size: 2_000_000, unit: 'BLK', level: 1, data }));
    expect((await mgmt.importImage({ name: 'fba1', url: `file://${local}/fba.img`, osVersion: 'sles15', md5sum: md5 })).diskSizeUnits).toBe('2000000:BLK');
    await mgmt.deployImage({ userid: 'LINUX01', image: 'fba1', vdev: '0201' });
    const cap = await mgmt.captureImage({ userid: 'LINUX01', image: 'fbacap', vdev: '0201', captureType: 'rootonly', compressLevel: 0, osVersion: 'sles15' });
    expect(cap).toMatchObject({ diskType: 'FBA', diskSizeUnits: `${disk.size}:BLK` });
    const bytes = readFileSync(join(ssh.fsRoot, cap.path));
    expect(bytes.subarray(0, 512).toString('latin1')).toBe(`xCAT FBA Part Image:${`${disk.size} BLK`.padStart(16)} HLen: 0055 GZIP: 0`.padEnd(512));
    expect(bytes.subarray(512)).toEqual(data);
    await mgmt.exportImage({ name: 'fbacap', destUrl: `file://${local}/fbacap.img` });
    expect((await mgmt.importImage({ name: 'fbaagain', url: `file://${local}/fbacap.img`, osVersion: 'sles15', md5sum: cap.md5sum })).diskSizeUnits).toBe(`${disk.size}:BLK`);
    // a CKD image does not go onto an FBA disk
    await expect(mgmt.deployImage({ userid: 'LINUX01', image: 'rhel86', vdev: '0201' })).rejects.toMatchObject({ message: expect.stringContaining('not a Count-Key-Data volume') });
  });

  it('imports a raw RHCOS image (size in cylinders from its bytes) and refuses one without disk_type', async () => {
    writeFileSync(join(local, 'rhcos.raw'), Buffer.alloc(737_281, 0));
    const raw = await mgmt.importImage({ name: 'rhcos1', url: `file://${local}/rhcos.raw`, osVersion: 'rhcos4.14', diskType: 'DASD' });
    expect(raw).toMatchObject({ diskSizeUnits: '2:CYL', sizeBytes: 737_281, comments: "{'disk_type': 'DASD'}" });
    await expect(mgmt.importImage({ name: 'rhcos2', url: `file://${local}/rhcos.raw`, osVersion: 'rhcos4.14' })).rejects.toMatchObject({ rs: 14, message: expect.stringContaining('Disk type is required for RHCOS image import') });
  });

  it('fails with the reference codes: unknown disk (not linked), logged-on guest, unknown image, alldisks', async () => {
    const noDisk = mgmt.deployImage({ userid: 'LINUX01', image: 'rhel86', vdev: '0200' });
    await expect(noDisk).rejects.toBeInstanceOf(ImageError);
    await expect(noDisk).rejects.toMatchObject({ rc: 300, rs: 3, message: expect.stringContaining('not linked; not in CP directory') });
    await hv.start('LINUX01');
    await expect(mgmt.deployImage({ userid: 'LINUX01', image: 'rhel86', vdev: '0100' })).rejects.toMatchObject({ rs: 3 });
    await hv.stop('LINUX01');
    await expect(mgmt.deployImage({ userid: 'LINUX01', image: 'nosuch', vdev: '0100' })).rejects.toMatchObject({ rs: 20 });
    await expect(mgmt.deployImage({ userid: 'LINUX01', image: 'rhel86', vdev: '0100', osVersion: 'sles15' })).rejects.toMatchObject({ rs: 20 });
    await expect(mgmt.deployImage({ userid: 'LINUX01', image: 'rhel86', vdev: '0100', osVersion: '../..' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(mgmt.captureImage({ userid: 'LINUX01', image: 'c2', vdev: '0100', captureType: 'alldisks', compressLevel: 6, osVersion: 'x' })).rejects.toMatchObject({ code: 'NOT_SUPPORTED' });
  });

  it('refuses a wrong password and a foreign host key', async () => {
    const bad = createMgmtOps({ endpoint: { host: '127.0.0.1', port: ssh.port, username: 'zcc', password: 'nope', hostKeySha256: ssh.hostKeySha256 } });
    await expect(bad.vmcp('q userid')).rejects.toMatchObject({ code: 'HYPERVISOR', fn: 'ssh' });
    await bad.close();
    const pinned = createMgmtOps({ endpoint: { host: '127.0.0.1', port: ssh.port, username: 'zcc', password: 'pw', hostKeySha256: '00'.repeat(32) } });
    await expect(pinned.vmcp('q userid')).rejects.toMatchObject({ code: 'HYPERVISOR', reason: 'HostKeyMismatch' });
    await pinned.close();
    const unpinned = createMgmtOps({ endpoint: { host: '127.0.0.1', port: ssh.port, username: 'zcc', password: 'pw' } });
    await expect(unpinned.vmcp('q userid')).rejects.toMatchObject({ reason: 'HostKeyNotConfigured' });
    await unpinned.close();
  });
});
