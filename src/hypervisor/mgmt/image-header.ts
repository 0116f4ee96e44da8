/**
 * The disk-image header our simulator writes and the adapter reads (feilong-rest.md §3.11 reads
 * the units of zthin's images from fixed header bytes; ours is a small fixed layout of our own):
 *
 *   offset 0    8 bytes   magic "ZVMDIMG1"
 *   offset 8    3 bytes   disk type "CKD" or "FBA"
 *   offset 11   1 byte    blank
 *   offset 12   20 bytes  disk size units, ASCII, blank padded: "<n>:CYL" (CKD) or "<n>:BLK" (FBA)
 *   offset 32   2 bytes   compress level, ASCII digits, blank padded ("6 ")
 *   offset 34   1 byte    blank
 *   offset 35   17 bytes  source, ASCII, blank padded: "<USERID>.<VDEV>" or blanks
 *   offset 52   460 bytes zero
 *
 * The header is HEADER_SIZE (512) bytes; the disk contents follow it.
 */
import { ImageError, ImageRs, type DiskImageType } from '../image-port.js';

export const HEADER_SIZE = 512;
export const HEADER_MAGIC = 'ZVMDIMG1';

export interface ImageHeader {
  diskType: DiskImageType;
  /** '<n>:CYL' or '<n>:BLK' */
  diskSizeUnits: string;
  compressLevel: number;
  source: string;
}

function field(buf: Buffer, offset: number, length: number, text: string): void {
  buf.write(text.slice(0, length).padEnd(length, ' '), offset, length, 'latin1');
}

export function buildImageHeader(h: ImageHeader): Buffer {
  const buf = Buffer.alloc(HEADER_SIZE, 0);
  field(buf, 0, 8, HEADER_MAGIC);
  field(buf, 8, 4, h.diskType);
  field(buf, 12, 20, h.diskSizeUnits);
  field(buf, 32, 3, String(h.compressLevel));
  field(buf, 35, 17, h.source);
  return buf;
}

/** The units a disk of `size` cylinders (CKD) or blocks (FBA) is written as. */
export function diskSizeUnits(type: DiskImageType, size: number): string {
  return `${size}:${type === 'CKD' ? 'CYL' : 'BLK'}`;
}

/** The number part of '<n>:CYL' (GET /images/{name}/root_disk_size answers only that, §9.18). */
export function unitsNumber(units: string): string {
  return units.split(':')[0] ?? units;
}

/**
 * Reads the header with feilong's import checks: the type must be FBA or CKD (image rs7), the
 * units must be present and match the type (image rs6).
 */
export function parseImageHeader(buf: Buffer, fn = 'image_import'): ImageHeader {
  const text = (from: number, len: number) => buf.subarray(from, from + len).toString('latin1').trim();
  if (buf.length < HEADER_SIZE || text(0, 8) !== HEADER_MAGIC) {
    throw new ImageError(fn, ImageRs.noUnits, 'Image import error: The header of image does not contain built-in disk size units');
  }
  const type = text(8, 4);
  if (type !== 'CKD' && type !== 'FBA') {
    throw new ImageError(fn, ImageRs.badDiskType, "Image import error: The image's disk type is not valid. Currently only FBA or CKD type image is supported");
  }
  const units = text(12, 20);
  const m = /^([1-9][0-9]*):(CYL|BLK)$/.exec(units);
  if (!m || (m[2] === 'CYL') !== (type === 'CKD')) {
    throw new ImageError(fn, ImageRs.noUnits, 'Image import error: The header of image does not contain built-in disk size units');
  }
  return { diskType: type, diskSizeUnits: units, compressLevel: Number(text(32, 3)) || 0, source: text(35, 17) };
}
