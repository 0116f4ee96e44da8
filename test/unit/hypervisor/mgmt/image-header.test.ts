/**
 * zthin's disk-image header (creatediskimage/unpackdiskimage in feilong's zthin-parts) pinned
 * byte for byte: the literal headers below are spelled from the documented layout, not produced
 * by our writer, and feilong's own reading (`hexdump -n 48 -C`, then characters 144–156 and
 * 220–223 of its output) is replayed with the real hexdump on our writer's bytes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildImageHeader, parseImageHeader, rawDiskSizeUnits } from '../../../../src/hypervisor/mgmt/index.js';

const pad = (s: string) => Buffer.from(s.padEnd(512, ' '), 'latin1');
const CKD = 'xCAT CKD Disk Image:        3338 CYL HLen: 0055 GZIP: 6';
const FBA = 'xCAT FBA Disk Image:     4194304 BLK HLen: 0055 GZIP: 0';
const FBA_PART = 'xCAT FBA Part Image:     2097152 BLK HLen: 0055 GZIP: 9';
const tmp = mkdtempSync(join(tmpdir(), 'zvm-header-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** What feilong's _get_disk_size_units computes from a file: hexdump output at fixed character positions. */
function feilongDiskSizeUnits(bytes: Buffer): string {
  const file = join(tmp, 'img');
  writeFileSync(file, bytes);
  const out = execFileSync('hexdump', ['-n', '48', '-C', file], { encoding: 'latin1' });
  return `${parseInt(out.slice(144, 156), 10)}:${out.slice(220, 223)}`;
}

describe('the zthin disk-image header', () => {
  it('is written byte for byte as creatediskimage writes it (CKD and FBA partition)', () => {
    expect(buildImageHeader({ diskType: 'CKD', diskSizeUnits: '3338:CYL', compressLevel: 6 })).toEqual(pad(CKD));
    expect(buildImageHeader({ diskType: 'FBA', diskSizeUnits: '2097152:BLK', compressLevel: 9 })).toEqual(pad(FBA_PART));
    expect(buildImageHeader({ diskType: 'FBA', diskSizeUnits: '4194304:BLK', compressLevel: 0, tag: 'xCAT FBA Disk Image:' })).toEqual(pad(FBA));
    expect(pad(CKD)).toHaveLength(512);
  });

  it.each([
    ['CKD', CKD, '3338:CYL'],
    ['FBA disk', FBA, '4194304:BLK'],
    ['FBA partition', FBA_PART, '2097152:BLK'],
  ])('reads a %s header at the positions feilong reads (size, units, level, data offset)', (_what, text, units) => {
    const header = parseImageHeader(pad(text));
    expect(header.diskSizeUnits).toBe(units);
    expect(feilongDiskSizeUnits(pad(text))).toBe(units);
    expect(feilongDiskSizeUnits(buildImageHeader(header))).toBe(units);
    expect(header.compressLevel).toBe(Number(text.at(-1)));
    expect(header.dataOffset).toBe(512);
    expect(header.diskType).toBe(text.includes('CKD') ? 'CKD' : 'FBA');
  });

  it('reads a version-1 header (no HLen: 36 bytes, level 6)', () => {
    const v1 = Buffer.concat([Buffer.from('xCAT CKD Disk Image:        3338 CYL', 'latin1'), Buffer.alloc(100, 1)]);
    expect(parseImageHeader(v1)).toMatchObject({ diskSizeUnits: '3338:CYL', compressLevel: 6, dataOffset: 36 });
  });

  it.each([
    ['no header at all (rs6)', Buffer.alloc(512, 0), 6],
    ['a size that is not a number (rs6)', pad('xCAT CKD Disk Image:        33x8 CYL HLen: 0055 GZIP: 6'), 6],
    ['a unit that does not fit the tag (rs6)', pad('xCAT CKD Disk Image:        3338 BLK HLen: 0055 GZIP: 6'), 6],
    ['an FCP (SCSI) image, which names neither FBA nor CKD (rs7)', pad('xCAT FCP Disk Image:     4194304 BLK HLen: 0055 GZIP: 6'), 7],
    ['an unknown tag (rs7)', pad('xCAT XYZ Disk Image:        3338 CYL HLen: 0055 GZIP: 6'), 7],
  ])('refuses %s with feilong\'s image code', (_what, bytes, rs) => {
    expect(() => parseImageHeader(bytes)).toThrow(expect.objectContaining({ rc: 300, rs }));
  });

  it('sizes a raw (RHCOS) image in cylinders from its byte count, rounded up, as feilong does', () => {
    expect(rawDiskSizeUnits(737_280)).toBe('1:CYL');
    expect(rawDiskSizeUnits(737_281)).toBe('2:CYL');
    expect(rawDiskSizeUnits(3_899_654_144)).toBe('5290:CYL');
  });
});
