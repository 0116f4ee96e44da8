/** Shared pieces of the management-guest tests: images in our header format and a guest with a disk. */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateEd25519KeyPair } from '../../src/hypervisor/ssh-keys.js';
import { buildImageHeader } from '../../src/hypervisor/mgmt/index.js';
import type { DiskImageType } from '../../src/hypervisor/image-port.js';

export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** An image file: our header plus `bodyBytes` of deterministic contents. */
export function imageBytes(o: { type?: DiskImageType; units?: string; bodyBytes?: number; seed?: number } = {}): Buffer {
  const type = o.type ?? 'CKD';
  const header = buildImageHeader({ diskType: type, diskSizeUnits: o.units ?? (type === 'CKD' ? '100:CYL' : '2048:BLK'), compressLevel: 6, source: 'TEST.0100' });
  const body = Buffer.alloc(o.bodyBytes ?? 300_000);
  for (let i = 0; i < body.length; i++) body[i] = (i * 31 + (o.seed ?? 7)) & 0xff;
  return Buffer.concat([header, body]);
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
