/**
 * zthin's disk-image tools as the simulated management guest runs them. A deployed image is
 * "written to the guest's disk": a copy of the image file kept in the disk store with the extent
 * it was written to, so a later capture of the same minidisk yields the same disk contents. Both
 * tools refuse a guest that is logged on (its disk is linked R/W), as LINK would.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, open, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { buildImageHeader, diskSizeUnits, HEADER_SIZE, parseImageHeader } from '../../mgmt/image-header.js';
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

export function createDiskImageTools(sim: SimHost, diskDir: string) {
  const stored = (userid: string, vdev: string) => join(diskDir, `${userid}.${vdev}`);

  async function recordOf(userid: string, disk: DirectoryDisk): Promise<DiskRecord | undefined> {
    try {
      const rec = JSON.parse(await readFile(`${stored(userid, disk.vdev)}.json`, 'utf8')) as DiskRecord;
      // a disk defined anew on other space does not carry the old contents
      return rec.volser === disk.volser && rec.start === disk.start ? rec : undefined;
    } catch {
      return undefined;
    }
  }

  /** unpackdiskimage <USERID> <vdev> <image file> */
  async function unpack(userid: string, vdev: string, imagePath: string, imageLabel: string): Promise<CommandResult> {
    const disk = link(sim, userid, vdev);
    if ('exitCode' in disk) return disk;
    let header;
    try {
      header = parseImageHeader(await readHeader(imagePath), 'unpackdiskimage');
    } catch (err) {
      return fail(`${imageLabel} is not a disk image: ${(err as Error).message}`);
    }
    const units = Number(header.diskSizeUnits.split(':')[0]);
    if (header.diskType !== typeOf(disk)) return fail(`${header.diskType} image cannot be written to ${disk.deviceType} disk ${disk.vdev}`);
    if (units > disk.size) return fail(`image needs ${header.diskSizeUnits}, disk ${disk.vdev} has ${diskSizeUnits(typeOf(disk), disk.size)}`);
    await mkdir(diskDir, { recursive: true });
    const target = stored(userid, disk.vdev);
    await copyFile(imagePath, target);
    const md5 = await md5File(target);
    const image = basename(dirname(imageLabel));
    const rec: DiskRecord = { volser: disk.volser, start: disk.start, image, md5 };
    await writeFile(`${target}.json`, `${JSON.stringify(rec)}\n`);
    sim.appendConsole(userid, `UNPACKDISKIMAGE: image ${image} (${header.diskSizeUnits}, md5 ${md5}) written to disk ${disk.vdev}`);
    return { exitCode: 0, stdout: `Image ${imageLabel} unpacked to ${userid} ${disk.vdev}\n`, stderr: '' };
  }

  /** creatediskimage <USERID> <vdev> <image file> --compression <n> */
  async function create(userid: string, vdev: string, outPath: string, compression: number): Promise<CommandResult> {
    const disk = link(sim, userid, vdev);
    if ('exitCode' in disk) return disk;
    const type = typeOf(disk);
    const header = buildImageHeader({ diskType: type, diskSizeUnits: diskSizeUnits(type, disk.size), compressLevel: compression, source: `${userid}.${disk.vdev}` });
    const rec = await recordOf(userid, disk);
    await mkdir(dirname(outPath), { recursive: true });
    if (rec) {
      // the deployed contents, under a header that describes this disk
      const out = createWriteStream(outPath);
      out.write(header);
      await pipeline(createReadStream(stored(userid, disk.vdev), { start: HEADER_SIZE }), out);
    } else {
      await writeFile(outPath, Buffer.concat([header, Buffer.alloc(EMPTY_DISK_BYTES)]));
    }
    const size = (await stat(outPath)).size;
    sim.appendConsole(userid, `CREATEDISKIMAGE: disk ${disk.vdev} captured (${size} bytes)`);
    return { exitCode: 0, stdout: `Image file created from ${userid} ${disk.vdev}\n`, stderr: '' };
  }

  return { unpack, create };
}
