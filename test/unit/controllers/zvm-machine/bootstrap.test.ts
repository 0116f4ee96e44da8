/**
 * Bootstrap data as the guest reads it: Ignition as config.ign, cloud-config in a config-2 ISO 9660 volume
 * (`file`, libmagic's reader, names the format and the label; the directory records lead to user_data's
 * bytes), bounded and checked.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_BOOTSTRAP_BYTES, readerFileOf } from '../../../../src/controllers/zvm-machine/bootstrap.js';

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
const machine = { name: 'c1-cp-x', uid: 'u-1', host: 'zvm1' };

/** One directory record's extent and size by name (ECMA-119 §9.1), read from the sector at `sector`. */
function entry(iso: Buffer, sector: number, name: string): { sector: number; size: number } {
  let at = sector * 2048;
  while (iso[at]! > 0) {
    const length = iso[at]!;
    const id = iso.subarray(at + 33, at + 33 + iso[at + 32]!).toString('ascii');
    if (id === name) return { sector: iso.readUInt32LE(at + 2), size: iso.readUInt32LE(at + 10) };
    at += length;
  }
  throw new Error(`${name} not found`);
}

describe('bootstrap reader files', () => {
  it('punches Ignition as it is, as a file of type ign', () => {
    const ign = '{"ignition":{"version":"3.4.0"}}';
    const file = readerFileOf({ data: { value: b64(ign), format: b64('ignition') } }, machine);
    expect(file.name).toBe('config.ign');
    expect(file.bytes.toString()).toBe(ign);
    expect(file.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('puts cloud-config in a config-2 ISO 9660 volume at openstack/latest/user_data', () => {
    const userData = '#cloud-config\nruncmd:\n  - kubeadm init\n';
    const file = readerFileOf({ data: { value: b64(userData), format: b64('cloud-config') } }, machine);
    expect(file.name).toBe('cfgdrive.iso');
    const dir = mkdtempSync(join(tmpdir(), 'zvm-iso-'));
    try {
      writeFileSync(join(dir, 'cfgdrive.iso'), file.bytes);
      expect(execFileSync('file', ['-b', join(dir, 'cfgdrive.iso')]).toString()).toMatch(/^ISO 9660 CD-ROM filesystem data 'config-2'/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const root = file.bytes.readUInt32LE(16 * 2048 + 156 + 2);
    const latest = entry(file.bytes, entry(file.bytes, root, 'OPENSTACK').sector, 'LATEST');
    const ud = entry(file.bytes, latest.sector, 'USER_DATA.;1');
    expect(file.bytes.subarray(ud.sector * 2048, ud.sector * 2048 + ud.size).toString()).toBe(userData);
    const md = entry(file.bytes, latest.sector, 'META_DATA.JSON;1');
    expect(JSON.parse(file.bytes.subarray(md.sector * 2048, md.sector * 2048 + md.size).toString())).toMatchObject({ uuid: 'u-1', hostname: 'c1-cp-x', availability_zone: 'zvm1' });
    // the same data gives the same bytes (the punch is recorded by digest)
    expect(readerFileOf({ data: { value: b64(userData) } }, machine).digest).toBe(file.digest);
  });

  it('refuses a Secret without value, an empty or oversized value, and an unknown format, naming no secret content', () => {
    expect(() => readerFileOf({ data: {} }, machine)).toThrow(/no key value/);
    expect(() => readerFileOf({ data: { value: '' } }, machine)).toThrow(/empty/);
    expect(() => readerFileOf({ data: { value: b64(Buffer.alloc(MAX_BOOTSTRAP_BYTES + 1, 65)) } }, machine)).toThrow(/more than the 1048576/);
    expect(() => readerFileOf({ data: { value: b64('x'), format: b64('mime-multipart') } }, machine)).toThrow(/neither cloud-config nor ignition/);
  });
});
