/**
 * The image repository on the management guest, in feilong's layout (docs/rest-interface.md §4.3):
 * `<root>/netboot/<os_version>/<image_name>/<root_vdev>` holds the image; beside it our
 * `image.json` holds the record feilong keeps in its image table. Captures are staged under
 * `<root>/staging/`, transport files under `<root>/transport/`.
 */
import { posix } from 'node:path';
import { InvalidInputError } from '../../errors.js';
import type { DiskImageType, ImageRecord } from '../image-port.js';
import { checkImageName, joinInside } from './paths.js';
import type { SftpFiles } from './sftp-files.js';

export const META_FILE = 'image.json';

/** What image.json holds: the image table row (docs/rest-interface.md §4.3) plus the disk type. */
interface ImageMeta {
  imagename: string;
  imageosdistro: string;
  md5sum: string;
  disk_size_units: string;
  image_size_in_bytes: string;
  type: string;
  comments: string | null;
  disk_type: DiskImageType;
  owner?: string;
}

export interface Repository {
  root: string;
  rootVdev: string;
  imageDir(osVersion: string, name: string): string;
  imageFile(osVersion: string, name: string): string;
  stagingDir(osVersion: string, name: string): string;
  transportDir(): string;
  find(files: SftpFiles, name: string): Promise<ImageRecord | undefined>;
  list(files: SftpFiles): Promise<ImageRecord[]>;
  writeMeta(files: SftpFiles, record: ImageRecord): Promise<void>;
  /** Refuses a path that resolves (through symlinks) outside the repository. */
  assertInside(files: SftpFiles, path: string): Promise<void>;
}

export function createRepository(root: string, rootVdev: string): Repository {
  const netboot = joinInside(root, 'netboot');

  async function readRecord(files: SftpFiles, osVersion: string, dirName: string): Promise<ImageRecord | undefined> {
    const dir = joinInside(netboot, osVersion, dirName);
    const metaPath = joinInside(dir, META_FILE);
    if (!(await files.statOrUndefined(metaPath))) return undefined;
    const meta = JSON.parse(await files.readText(metaPath)) as ImageMeta;
    const path = joinInside(dir, rootVdev);
    const st = await files.statOrUndefined(path);
    return {
      name: meta.imagename,
      osVersion: meta.imageosdistro,
      md5sum: meta.md5sum,
      diskSizeUnits: meta.disk_size_units,
      diskType: meta.disk_type,
      sizeBytes: Number(meta.image_size_in_bytes),
      type: meta.type,
      comments: meta.comments,
      path,
      lastAccessTime: st?.atime ?? -1,
      ...(meta.owner ? { owner: meta.owner } : {}),
    };
  }

  async function osDirs(files: SftpFiles): Promise<string[]> {
    if (!(await files.statOrUndefined(netboot))) return [];
    return (await files.readdir(netboot)).filter((e) => e.attrs.isDirectory()).map((e) => e.filename).sort();
  }

  return {
    root,
    rootVdev,
    imageDir: (os, name) => joinInside(netboot, os, checkImageName(name)),
    imageFile: (os, name) => joinInside(netboot, os, checkImageName(name), rootVdev),
    stagingDir: (os, name) => joinInside(root, 'staging', os, checkImageName(name)),
    transportDir: () => joinInside(root, 'transport'),
    async find(files, name) {
      checkImageName(name);
      // names are case-insensitive, as feilong's image table (NOCASE)
      const want = name.toLowerCase();
      for (const os of await osDirs(files)) {
        for (const e of await files.readdir(joinInside(netboot, os))) {
          if (e.filename.toLowerCase() !== want || !e.attrs.isDirectory()) continue;
          const rec = await readRecord(files, os, e.filename);
          if (rec) return rec;
        }
      }
      return undefined;
    },
    async list(files) {
      const out: ImageRecord[] = [];
      for (const os of await osDirs(files)) {
        for (const e of await files.readdir(joinInside(netboot, os))) {
          if (!e.attrs.isDirectory()) continue;
          const rec = await readRecord(files, os, e.filename);
          if (rec) out.push(rec);
        }
      }
      return out.sort((a, b) => a.name.localeCompare(b.name));
    },
    async writeMeta(files, r) {
      const meta: ImageMeta = {
        imagename: r.name,
        imageosdistro: r.osVersion,
        md5sum: r.md5sum,
        disk_size_units: r.diskSizeUnits,
        image_size_in_bytes: String(r.sizeBytes),
        type: r.type,
        comments: r.comments,
        disk_type: r.diskType,
        ...(r.owner ? { owner: r.owner } : {}),
      };
      await files.writeText(joinInside(posix.dirname(r.path), META_FILE), `${JSON.stringify(meta, null, 2)}\n`);
    },
    async assertInside(files, path) {
      const realRoot = await files.realpath(root);
      const real = await files.realpath(path);
      if (real !== realRoot && !real.startsWith(`${realRoot}/`)) throw new InvalidInputError(`${path} resolves outside the image repository`);
    },
  };
}
