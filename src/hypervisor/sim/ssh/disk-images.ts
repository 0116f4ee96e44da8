/**
 * zthin's disk-image tools as the simulated management guest runs them, on images in zthin's real
 * format (mgmt/image-header.ts). A deployed image is "written to the guest's disk": its data,
 * gunzipped when the header names a level above 0, is kept in the disk store with the extent it
 * was written to, so a later capture of the same minidisk yields the same disk contents under a
 * header that describes that disk. Both tools refuse a guest that is logged on (its disk is
 * linked R/W), as LINK would.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { buildImageHeader, diskSizeUnits, HEADER_SIZE, IMAGE_TAGS, parseImageHeader, unitsNumber, type ParsedImageHeader } from '../../mgmt/image-header.js';
import type { Logger } from '../../../log.js';
import type { DirectoryDisk } from '../../port.js';
import type { SimHost } from '../host.js';
import type { CommandResult } from './commands.js';

interface DiskRecord {
  volser: string;
  start: number;
  image: string;
  md5: string;
}

/** Bytes of disk contents a never-deployed disk captures as (zeros). */
const EMPTY_DISK_BYTES = 4096;

const fail = (text: string): CommandResult => ({ exitCode: 1, stdout: `ERROR: ${text}\n`, stderr: '' });

export async function md5File(path: string): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function readHeader(path: string): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(HEADER_SIZE);
    const { bytesRead } = await fh.read(buf, 0, HEADER_SIZE, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

function typeOf(disk: DirectoryDisk): 'CKD' | 'FBA' {
  return disk.deviceType.startsWith('33') ? 'CKD' : 'FBA';
}

/** LINK of a guest's minidisk by the management guest: the disk must exist and be free. */
function link(sim: SimHost, userid: string, vdev: string): DirectoryDisk | CommandResult {
  const disk = sim.minidisk(userid, vdev);
  if (!disk) return fail(`Unable to link ${userid} ${vdev}: DASD ${vdev} not linked; not in CP directory`);
  const power = sim.queryUser(userid);
  if (power && power !== 'off') return fail(`Unable to link ${userid} ${vdev}: DASD ${vdev} forced R/O; R/W by ${userid} (the guest is logged on)`);
  return disk;
}

export type DiskImageTools = ReturnType<typeof createDiskImageTools>;

export function createDiskImageTools(sim: SimHost, diskDir: string) {
  const stored = (userid: string, vdev: string) => join(diskDir, `${userid}.${vdev}`);

  async function readRecord(target: string): Promise<DiskRecord | undefined> {
    try {
      return JSON.parse(await readFile(`${target}.json`, 'utf8')) as DiskRecord;
    } catch {
      return undefined;
    }
  }

  async function recordOf(userid: string, disk: DirectoryDisk): Promise<DiskRecord | undefined> {
    const rec = await readRecord(stored(userid, disk.vdev));
    // a disk defined anew on other space does not carry the old contents
    return rec?.volser === disk.volser && rec.start === disk.start ? rec : undefined;
  }

  /** unpackdiskimage <USERID> <vdev> <image file>: zthin's checks and messages, the data gunzipped (level > 0) onto the disk. */
  async function unpack(userid: string, vdev: string, imagePath: string, imageLabel: string): Promise<CommandResult> {
    const disk = link(sim, userid, vdev);
    if ('exitCode' in disk) return disk;
    const head = await readHeader(imagePath);
    if (!Object.values(IMAGE_TAGS).some((t) => head.subarray(0, 20).toString('latin1') === t)) return fail('Disk image type not recognized');
    let header: ParsedImageHeader;
    try {
      header = parseImageHeader(head, 'unpackdiskimage');
    } catch {
      return fail(`${imageLabel} does not contain cylinder/record information.  This appears to be a dummy image file.`);
    }
    if (header.diskType !== typeOf(disk)) {
      return fail(header.diskType === 'CKD'
        ? 'Specified image is of a Count-Key-Data volume, but specified disk is not a Count-Key-Data volume.'
        : 'Specified image is of a fixed-block volume, but specified disk is not a fixed-block volume.');
    }
    if (Number(unitsNumber(header.diskSizeUnits)) > disk.size) return fail('Target disk is too small for specified image.');
    await mkdir(diskDir, { recursive: true });
    const target = stored(userid, disk.vdev);
    const data = createReadStream(imagePath, { start: header.dataOffset });
    try {
      if (header.compressLevel > 0) await pipeline(data, createGunzip(), createWriteStream(target));
      else await pipeline(data, createWriteStream(target));
    } catch (err) {
      return fail(`Failed deploying disk image ${basename(imageLabel)} at stage(rc): ${header.compressLevel > 0 ? 'zcat' : 'dd'}(1) ${(err as Error).message}`);
    }
    const md5 = await md5File(target);
    const image = basename(dirname(imageLabel));
    const rec: DiskRecord = { volser: disk.volser, start: disk.start, image, md5 };
    await writeFile(`${target}.json`, `${JSON.stringify(rec)}\n`);
    sim.appendConsole(userid, `UNPACKDISKIMAGE: image ${image} (${header.diskSizeUnits}, md5 ${md5}) written to disk ${disk.vdev}`);
    return { exitCode: 0, stdout: `Image ${imageLabel} unpacked to ${userid} ${disk.vdev}\n`, stderr: '' };
  }

  /** creatediskimage <USERID> <vdev> <image file> --compression <n>: zthin's header, then the disk's contents gzipped at that level. */
  async function create(userid: string, vdev: string, outPath: string, compression: number): Promise<CommandResult> {
    const disk = link(sim, userid, vdev);
    if ('exitCode' in disk) return disk;
    if (!Number.isInteger(compression) || compression < 0 || compression > 9) return fail(`Compression operand is not between 0 and 9, inclusive: ${compression}`);
    if (existsSync(outPath)) return fail('The specified image file already exists.');
    const type = typeOf(disk);
    const header = buildImageHeader({ diskType: type, diskSizeUnits: diskSizeUnits(type, disk.size), compressLevel: compression });
    const rec = await recordOf(userid, disk);
    await mkdir(dirname(outPath), { recursive: true });
    const contents = rec ? createReadStream(stored(userid, disk.vdev)) : Readable.from([Buffer.alloc(EMPTY_DISK_BYTES)]);
    const out = createWriteStream(outPath);
    out.write(header);
    if (compression > 0) await pipeline(contents, createGzip({ level: compression }), out);
    else await pipeline(contents, out);
    const size = (await stat(outPath)).size;
    sim.appendConsole(userid, `CREATEDISKIMAGE: disk ${disk.vdev} captured (${size} bytes)`);
    return { exitCode: 0, stdout: `Image file created from ${userid} ${disk.vdev}\n`, stderr: '' };
  }

  /**
   * The directory no longer has these disks: their contents leave the disk store, as the space of a
   * deleted minidisk is no longer the guest's. Contents of a disk defined anew at the same vdev
   * (another extent) stay. Never fails: a leftover file is logged, the host's answer stands.
   */
  async function forget(userid: string, disks: DirectoryDisk[], log: Logger): Promise<void> {
    for (const disk of disks) {
      const target = stored(userid, disk.vdev);
      const rec = await readRecord(target);
      if (rec && (rec.volser !== disk.volser || rec.start !== disk.start)) continue;
      try {
        await rm(target, { force: true });
        await rm(`${target}.json`, { force: true });
      } catch (err) {
        log.warn({ err, userid, vdev: disk.vdev }, 'could not remove the contents of a deleted minidisk');
      }
    }
  }

  return { unpack, create, forget };
}
