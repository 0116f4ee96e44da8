/** Shared pieces of the management-guest tests: images in zthin's format, temp dirs, keys. */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { generateEd25519KeyPair } from '../../src/hypervisor/sim/ssh/ssh-keys.js';
import type { DiskImageType } from '../../src/hypervisor/image-port.js';

export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A disk image exactly as zthin's creatediskimage writes it, spelled out here from the documented
 * layout (not with our writer): 20-byte tag, "<size> <unit>" right-aligned in 16, " HLen: 0055",
 * " GZIP: <level>", blanks to 512, then the data gzipped at that level (raw for 0).
 */
export function zthinImage(o: { tag: string; size: number; unit: 'CYL' | 'BLK'; level: number; data: Buffer }): Buffer {
  const sizeField = `${o.size} ${o.unit}`;
  const header = `${o.tag}${' '.repeat(16 - sizeField.length)}${sizeField} HLen: 0055 GZIP: ${o.level}`;
  const padded = Buffer.from(header + ' '.repeat(512 - header.length), 'latin1');
  return Buffer.concat([padded, o.level > 0 ? gzipSync(o.data, { level: o.level }) : o.data]);
}

/** Deterministic disk contents. */
export function diskData(bytes: number, seed = 7): Buffer {
  const body = Buffer.alloc(bytes);
  for (let i = 0; i < body.length; i++) body[i] = (i * 31 + seed) & 0xff;
  return body;
}

/** A zthin-format image: CKD 100 cylinders or FBA 2048 blocks, gzip level 6 by default. */
export function imageBytes(o: { type?: DiskImageType; bodyBytes?: number; seed?: number; level?: number } = {}): Buffer {
  const ckd = (o.type ?? 'CKD') === 'CKD';
  return zthinImage({
    tag: ckd ? 'xCAT CKD Disk Image:' : 'xCAT FBA Part Image:', size: ckd ? 100 : 2048, unit: ckd ? 'CYL' : 'BLK',
    level: o.level ?? 6, data: diskData(o.bodyBytes ?? 300_000, o.seed),
  });
}

/** The disk contents an image carries (after its 512-byte header, gunzipped when its level is above 0). */
export function imageData(image: Buffer): Buffer {
  const level = Number(image.subarray(54, 55).toString('latin1'));
  const data = image.subarray(512);
  return level > 0 ? gunzipSync(data) : data;
}

export function writeImage(path: string, bytes: Buffer): string {
  writeFileSync(path, bytes);
  return createHash('md5').update(bytes).digest('hex');
}

export const md5Of = (b: Buffer) => createHash('md5').update(b).digest('hex');

/** An ed25519 client key pair in OpenSSH format. */
export function clientKeys(): { privateKey: string; publicKey: string } {
  const k = generateEd25519KeyPair();
  return { privateKey: k.private, publicKey: k.public };
}
