/**
 * The disk-image header of IBM's zthin tools (xCAT heritage), as `creatediskimage` writes it and
 * `unpackdiskimage` and feilong's image import read it. All ASCII, no separators beyond blanks:
 *
 *   offset  0  20 bytes  tag: "xCAT CKD Disk Image:", "xCAT FBA Disk Image:", "xCAT FBA Part Image:"
 *                        (what zthin captures from an FBA disk today) or "xCAT FCP Disk Image:"
 *   offset 20  16 bytes  "<size> <unit>" right-aligned: "        3338 CYL", "     4194304 BLK"
 *   offset 36  11 bytes  " HLen: 0055" (header length; version 2 and later)
 *   offset 47   8 bytes  " GZIP: <level>" (one digit, 0 = not compressed)
 *   offset 55 457 bytes  blanks, to 512
 *
 * The disk data follows at byte 512: gzip-compressed at that level (CKD: ckdencode's track
 * format; FBA: the blocks), or raw for level 0. feilong reads the size from bytes 20–31 and the
 * unit from bytes 33–35 (`_get_disk_size_units`, through hexdump), and refuses a header that
 * names neither FBA nor CKD. Images without `HLen:` (version 1) have a 36-byte header and level 6.
 */
import { ImageError, ImageRs, type DiskImageType } from '../image-port.js';

export const HEADER_SIZE = 512;
/** The bytes a version-2 header fills before the blank padding. */
export const HEADER_LENGTH = 55;
const V1_HEADER_LENGTH = 36;

export const IMAGE_TAGS = {
  ckd: 'xCAT CKD Disk Image:',
  fba: 'xCAT FBA Disk Image:',
  fbaPart: 'xCAT FBA Part Image:',
  fcp: 'xCAT FCP Disk Image:',
} as const;
export type ImageTag = (typeof IMAGE_TAGS)[keyof typeof IMAGE_TAGS];

export interface ImageHeader {
  diskType: DiskImageType;
  /** '<n>:CYL' or '<n>:BLK' */
  diskSizeUnits: string;
  /** gzip level of the data, 0–9 (0: raw) */
  compressLevel: number;
  /** default: the CKD tag for CKD, the FBA partition tag zthin writes for FBA */
  tag?: ImageTag;
}

export interface ParsedImageHeader extends Required<ImageHeader> {
  /** where the disk data starts */
  dataOffset: number;
}

/** The units a disk of `size` cylinders (CKD) or blocks (FBA) is written as. */
export function diskSizeUnits(type: DiskImageType, size: number): string {
  return `${size}:${type === 'CKD' ? 'CYL' : 'BLK'}`;
}

/** The number part of '<n>:CYL'. */
export function unitsNumber(units: string): string {
  return units.split(':')[0] ?? units;
}

export function buildImageHeader(h: ImageHeader): Buffer {
  const tag = h.tag ?? (h.diskType === 'CKD' ? IMAGE_TAGS.ckd : IMAGE_TAGS.fbaPart);
  const [size, unit] = h.diskSizeUnits.split(':');
  if (!Number.isInteger(h.compressLevel) || h.compressLevel < 0 || h.compressLevel > 9) throw new RangeError(`compression level ${h.compressLevel} is not 0-9`);
  const text = `${tag}${`${size} ${unit}`.padStart(16, ' ')} HLen: 0055 GZIP: ${h.compressLevel}`;
  return Buffer.from(text.padEnd(HEADER_SIZE, ' '), 'latin1');
}

const noUnits = (fn: string) => new ImageError(fn, ImageRs.noUnits, 'Image import error: The header of image does not contain built-in disk size units');
const badType = (fn: string) =>
  new ImageError(fn, ImageRs.badDiskType, "Image import error: The image's disk type is not valid. Currently only FBA or CKD type image is supported");

function tagOf(head: string): ImageTag | undefined {
  return Object.values(IMAGE_TAGS).find((t) => head.startsWith(t));
}

/**
 * Reads a header with feilong's import checks, in its order: a size that is not a number at bytes
 * 20–31 is image rs6, a header that names neither FBA nor CKD is rs7. Also refused as rs6: a unit
 * other than CYL/BLK or one that does not fit the tag (zthin never writes those).
 */
export function parseImageHeader(buf: Buffer, fn = 'image_import'): ParsedImageHeader {
  const text = buf.subarray(0, Math.min(buf.length, HEADER_SIZE)).toString('latin1');
  const sizeText = text.slice(20, 32).trim();
  const unit = text.slice(33, 36);
  if (!/^[0-9]+$/.test(sizeText)) throw noUnits(fn);
  const head = text.slice(0, 48);
  if (!head.includes('FBA') && !head.includes('CKD')) throw badType(fn);
  const tag = tagOf(text);
  if (!tag || tag === IMAGE_TAGS.fcp) throw badType(fn);
  const diskType: DiskImageType = tag === IMAGE_TAGS.ckd ? 'CKD' : 'FBA';
  if (unit !== (diskType === 'CKD' ? 'CYL' : 'BLK') || Number(sizeText) === 0) throw noUnits(fn);
  const versioned = text.slice(37, 42) === 'HLen:';
  const headerLength = versioned ? Number(text.slice(43, 47)) : V1_HEADER_LENGTH;
  if (!Number.isInteger(headerLength) || headerLength < V1_HEADER_LENGTH) throw noUnits(fn);
  const level = headerLength >= HEADER_LENGTH ? Number(text[54]) : 6;
  return {
    diskType, tag, diskSizeUnits: `${Number(sizeText)}:${unit}`,
    compressLevel: Number.isInteger(level) ? level : 6,
    dataOffset: versioned ? (Math.floor(headerLength / HEADER_SIZE) + 1) * HEADER_SIZE : V1_HEADER_LENGTH,
  };
}

/** RHCOS images are raw disks (no header); feilong sizes them in cylinders from the file's byte count. */
export const CKD_CYLINDER_BYTES = 737_280;

export function isRawImageOs(osVersion: string): boolean {
  return osVersion.toLowerCase().startsWith('rhcos');
}

export function rawDiskSizeUnits(sizeBytes: number): string {
  return `${Math.ceil(sizeBytes / CKD_CYLINDER_BYTES)}:CYL`;
}
