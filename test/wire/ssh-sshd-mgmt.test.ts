/**
 * The mgmt adapter's command and transfer path against a real OpenSSH sshd on loopback: vmcp
 * (a script on PATH), import through SFTP with the real md5sum, import from user@host, export,
 * list, deploy through a stand-in unpackdiskimage and vmur, delete, and path traversal refused.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { MgmtOps } from '../../src/hypervisor/image-port.js';
import { createMgmtOps } from '../../src/hypervisor/mgmt/index.js';
import { diskData, imageBytes, imageData, md5Of, tempDir, writeImage, zthinImage } from './mgmt-helpers.js';
import { startSshd, type Sshd } from './ssh-sshd-harness.js';

const tmp = tempDir('zvm-sshd-');
const local = join(tmp.dir, 'local');
const repo = join(tmp.dir, 'repo');
let sshd: Sshd;
let mgmt: MgmtOps;

beforeAll(async () => {
  mkdirSync(local, { recursive: true });
  mkdirSync(repo, { recursive: true });
  sshd = await startSshd(join(tmp.dir, 'sshd'));
  mgmt = createMgmtOps({
    endpoint: { host: '127.0.0.1', port: sshd.port, username: sshd.user, privateKey: sshd.privateKey, hostKey: { trusted: [`[127.0.0.1]:${sshd.port} ${sshd.hostPublicKey}`] } },
    repository: repo,
    zthinBin: sshd.bin,
    allowedDirs: [local],
    remoteHostAuth: { port: sshd.port, privateKey: sshd.privateKey, hostKeys: [`[127.0.0.1]:${sshd.port} ${sshd.hostPublicKey}`] },
  });
}, 30_000);

afterAll(async () => {
  await mgmt?.close();
  await sshd?.stop();
  tmp.cleanup();
});

describe('the mgmt adapter against a real sshd', () => {
  it('refuses sshd when its host key is not the configured one, and user@host transfers to a host with no known key', async () => {
    const endpoint = { host: '127.0.0.1', port: sshd.port, username: sshd.user, privateKey: sshd.privateKey };
    const unknown = createMgmtOps({ endpoint, repository: repo });
    await expect(unknown.vmcp('q userid')).rejects.toMatchObject({ reason: 'HostKeyNotConfigured' });
    await unknown.close();
    // a known_hosts line for another port does not vouch for this one
    const otherPort = createMgmtOps({ endpoint: { ...endpoint, hostKey: { trusted: [`[127.0.0.1]:${sshd.port + 1} ${sshd.hostPublicKey}`] } }, repository: repo });
    await expect(otherPort.vmcp('q userid')).rejects.toMatchObject({ reason: 'HostKeyNotConfigured' });
    await otherPort.close();
    const noRemoteKeys = createMgmtOps({
      endpoint: { ...endpoint, hostKey: { trusted: [`[127.0.0.1]:${sshd.port} ${sshd.hostPublicKey}`] } },
      repository: repo, allowedDirs: [local], remoteHostAuth: { port: sshd.port, privateKey: sshd.privateKey },
    });
    writeImage(join(tmp.dir, 'refused.img'), imageBytes({ type: 'FBA', seed: 3 }));
    await expect(noRemoteKeys.importImage({ name: 'img-refused', url: `file://${tmp.dir}/refused.img`, remoteHost: `${sshd.user}@127.0.0.1`, osVersion: 'sles15' }))
      .rejects.toThrow(/no host key is configured/);
    expect(readdirSync(repo, { recursive: true }).map(String).some((p) => p.includes('img-refused'))).toBe(false);
    await noRemoteKeys.close();
  });

  it('runs vmcp from the session PATH and keeps CP error text first', async () => {
    expect(await mgmt.vmcp('q userid')).toEqual({ exitCode: 0, output: 'OPNCLOUD AT SSHDHOST\n' });
    const off = await mgmt.vmcp('q user linux02');
    expect(off.exitCode).toBe(1);
    expect(off.output).toBe("HCPCQU045E LINUX02 not logged on\nError: non-zero CP response for command 'Q USER LINUX02': #45\n");
  });

  it('imports a local file through SFTP, checked with the real md5sum and the header', async () => {
    const bytes = imageBytes({ bodyBytes: 2_000_000 });
    const md5 = writeImage(join(local, 'a.img'), bytes);
    const rec = await mgmt.importImage({ name: 'img-a', url: `file://${local}/a.img`, osVersion: 'rhel9.2', md5sum: md5 });
    expect(rec).toMatchObject({ name: 'img-a', md5sum: md5, diskSizeUnits: '100:CYL', sizeBytes: bytes.length, path: join(repo, 'netboot/rhel9.2/img-a/0100') });
    expect(md5Of(readFileSync(rec.path))).toBe(md5);
  });

  it('imports from user@host and exports locally and to user@host', async () => {
    const md5 = writeImage(join(tmp.dir, 'remote.img'), imageBytes({ type: 'FBA', seed: 9 }));
    const rec = await mgmt.importImage({ name: 'img-b', url: `file://${tmp.dir}/remote.img`, remoteHost: `${sshd.user}@127.0.0.1`, osVersion: 'sles15' });
    expect(rec).toMatchObject({ md5sum: md5, diskSizeUnits: '2048:BLK' });
    await mgmt.exportImage({ name: 'img-b', destUrl: `file://${local}/b-out.img` });
    expect(md5Of(readFileSync(join(local, 'b-out.img')))).toBe(md5);
    await mgmt.exportImage({ name: 'img-b', destUrl: `file://${tmp.dir}/b-remote.img`, remoteHost: `${sshd.user}@127.0.0.1` });
    expect(md5Of(readFileSync(join(tmp.dir, 'b-remote.img')))).toBe(md5);
    expect((await mgmt.listImages()).map((r) => r.name)).toEqual(['img-a', 'img-b']);
  });

  it('deploys through unpackdiskimage and punches transport files fetched from user@host', async () => {
    writeImage(join(tmp.dir, 'cfgdrive.tgz'), Buffer.alloc(500, 1));
    await mgmt.deployImage({ userid: 'linux01', image: 'img-a', vdev: '0100', transportFiles: join(tmp.dir, 'cfgdrive.tgz'), remoteHost: `${sshd.user}@127.0.0.1` });
    const a = await mgmt.describeImage('img-a');
    expect(readFileSync(join(sshd.dir, 'deployed.log'), 'utf8')).toBe(`LINUX01 0100 100 ${a!.md5sum}\n`);
    expect(md5Of(readFileSync(join(sshd.dir, 'disks/LINUX01.0100')))).toBe(md5Of(imageData(readFileSync(a!.path))));
    expect(readFileSync(join(sshd.dir, 'punched.log'), 'utf8')).toMatch(/^punch -r -u LINUX01 -N cfgdrive.tgz .*\/transport\/[0-9a-f-]+-cfgdrive.tgz\n$/);
    expect(readdirSync(join(repo, 'transport'))).toEqual([]);
    await expect(mgmt.deployImage({ userid: 'other', image: 'img-a', vdev: '0100' })).rejects.toMatchObject({ rs: 3, message: expect.stringContaining('not linked; not in CP directory') });
  });

  it('captures the deployed disk, exports it, imports the export and deploys it again (zthin format throughout)', async () => {
    const deployed = readFileSync(join(sshd.dir, 'disks/LINUX01.0100'));
    const cap = await mgmt.captureImage({ userid: 'LINUX01', image: 'img-cap', vdev: '0100', captureType: 'rootonly', compressLevel: 9, osVersion: 'rhel9.2' });
    expect(cap).toMatchObject({ diskType: 'CKD', diskSizeUnits: '100:CYL' });
    const bytes = readFileSync(cap.path);
    expect(bytes.subarray(0, 55).toString('latin1')).toBe('xCAT CKD Disk Image:         100 CYL HLen: 0055 GZIP: 9');
    await mgmt.exportImage({ name: 'img-cap', destUrl: `file://${local}/cap.img` });
    const again = await mgmt.importImage({ name: 'img-again', url: `file://${local}/cap.img`, osVersion: 'rhel9.2', md5sum: cap.md5sum });
    expect(again).toMatchObject({ md5sum: cap.md5sum, diskSizeUnits: '100:CYL' });
    rmSync(join(sshd.dir, 'disks/LINUX01.0100'));
    await mgmt.deployImage({ userid: 'LINUX01', image: 'img-again', vdev: '0100' });
    expect(readFileSync(join(sshd.dir, 'disks/LINUX01.0100'))).toEqual(deployed);
  });

  it('refuses to deploy an image larger than the disk, with zthin\'s message', async () => {
    const md5 = writeImage(join(local, 'huge.img'), zthinImage({ tag: 'xCAT CKD Disk Image:', size: 3338, unit: 'CYL', level: 0, data: diskData(1000) }));
    await mgmt.importImage({ name: 'img-huge', url: `file://${local}/huge.img`, osVersion: 'rhel9.2', md5sum: md5 });
    await expect(mgmt.deployImage({ userid: 'LINUX01', image: 'img-huge', vdev: '0100' })).rejects.toMatchObject({ rs: 3, message: expect.stringContaining('Target disk is too small for specified image.') });
  });

  it('refuses traversal in names and URLs without touching the repository, and deletes', async () => {
    const before = readdirSync(repo, { recursive: true }).map(String).sort();
    await expect(mgmt.importImage({ name: '..', url: `file://${local}/a.img`, osVersion: 'rhel9' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(mgmt.importImage({ name: 'x', url: `file://${local}/../repo/netboot`, osVersion: 'rhel9' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(mgmt.importImage({ name: 'y', url: 'file:///etc/shadow', osVersion: 'rhel9' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(mgmt.deleteImage('../../etc')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(readdirSync(repo, { recursive: true }).map(String).sort()).toEqual(before);
    await mgmt.deleteImage('img-a');
    expect(await mgmt.describeImage('img-a')).toBeUndefined();
  });
});
