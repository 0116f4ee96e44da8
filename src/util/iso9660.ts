/**
 * A small ISO 9660 writer (ECMA-119, interchange level 2, no extensions) for config drives: a tree of
 * directories and small files in one volume with a label. Names are written in upper case with a version
 * (`USER_DATA.;1`); Linux's iso9660 driver shows them as `user_data` (map=normal: lower case, `.;1`
 * dropped), which is how cloud-init's ConfigDrive datasource reads a config-2 volume. Deterministic:
 * every date is "not specified", so the same tree always gives the same bytes.
 */
const SECTOR = 2048;
/** sectors 0-15 are the system area; 16 the primary volume descriptor, 17 the terminator */
const FIRST_FREE = 18;

export type IsoTree = { [name: string]: IsoTree | Buffer };

interface Dir { name: string; parent: number; children: [string, IsoTree | Buffer][]; sector: number }

const both32 = (n: number): Buffer => { const b = Buffer.alloc(8); b.writeUInt32LE(n, 0); b.writeUInt32BE(n, 4); return b; };
const both16 = (n: number): Buffer => { const b = Buffer.alloc(4); b.writeUInt16LE(n, 0); b.writeUInt16BE(n, 2); return b; };
const sectorsFor = (bytes: number): number => Math.max(1, Math.ceil(bytes / SECTOR));
const text = (s: string, length: number): Buffer => Buffer.from(s.padEnd(length, ' ').slice(0, length), 'ascii');
/** "not specified": sixteen '0' digits and a zero offset */
const NO_DATE = Buffer.concat([Buffer.from('0'.repeat(16), 'ascii'), Buffer.alloc(1)]);

function isoName(name: string, isDir: boolean): string {
  const upper = name.toUpperCase();
  if (!/^[A-Z0-9_]+(\.[A-Z0-9_]+)?$/.test(upper) || upper.length > 30) throw new Error(`ISO 9660 level 2 cannot name ${name}`);
  return isDir ? upper : `${upper.includes('.') ? upper : `${upper}.`};1`;
}

function record(id: Buffer, sector: number, size: number, isDir: boolean): Buffer {
  const length = 33 + id.length + (id.length % 2 === 0 ? 1 : 0);
  const r = Buffer.alloc(length);
  r[0] = length;
  both32(sector).copy(r, 2);
  both32(size).copy(r, 10);
  // bytes 18-24: recording date, all zero = not specified
  r[25] = isDir ? 2 : 0;
  both16(1).copy(r, 28);
  r[32] = id.length;
  id.copy(r, 33);
  return r;
}

/** Directories breadth first (the path table's order), each with its parent's number (1-based). */
function directories(root: IsoTree): Dir[] {
  const dirs: Dir[] = [];
  const queue: { tree: IsoTree; name: string; parent: number }[] = [{ tree: root, name: '', parent: 1 }];
  while (queue.length > 0) {
    const { tree, name, parent } = queue.shift()!;
    const children = Object.entries(tree).sort(([a], [b]) => isoName(a, true).localeCompare(isoName(b, true)));
    dirs.push({ name, parent, children, sector: 0 });
    const number = dirs.length;
    for (const [child, value] of children) if (!Buffer.isBuffer(value)) queue.push({ tree: value, name: isoName(child, true), parent: number });
  }
  return dirs;
}

function pathTable(dirs: Dir[], bigEndian: boolean): Buffer {
  return Buffer.concat(dirs.map((d) => {
    const id = d.name === '' ? Buffer.alloc(1) : Buffer.from(d.name, 'ascii');
    const r = Buffer.alloc(8 + id.length + (id.length % 2));
    r[0] = id.length;
    if (bigEndian) { r.writeUInt32BE(d.sector, 2); r.writeUInt16BE(d.parent, 6); } else { r.writeUInt32LE(d.sector, 2); r.writeUInt16LE(d.parent, 6); }
    id.copy(r, 8);
    return r;
  }));
}

function primaryDescriptor(label: string, totalSectors: number, tableSize: number, lTable: number, mTable: number, root: Buffer): Buffer {
  const d = Buffer.alloc(SECTOR);
  d[0] = 1;
  d.write('CD001', 1, 'ascii');
  d[6] = 1;
  text('LINUX', 32).copy(d, 8);
  text(label, 32).copy(d, 40);
  both32(totalSectors).copy(d, 80);
  both16(1).copy(d, 120);
  both16(1).copy(d, 124);
  both16(SECTOR).copy(d, 128);
  both32(tableSize).copy(d, 132);
  d.writeUInt32LE(lTable, 140);
  d.writeUInt32BE(mTable, 148);
  root.copy(d, 156);
  for (const [offset, length] of [[190, 128], [318, 128], [446, 128], [574, 128], [702, 37], [739, 37], [776, 37]] as const) text('', length).copy(d, offset);
  for (const offset of [813, 830, 847, 864]) NO_DATE.copy(d, offset);
  d[881] = 1;
  return d;
}

/** The image of `tree` (directories are objects, files are Buffers) with volume label `label`. */
export function buildIso9660(label: string, tree: IsoTree): Buffer {
  const dirs = directories(tree);
  const tableSize = pathTable(dirs, false).length;
  const tableSectors = sectorsFor(tableSize);
  const lTable = FIRST_FREE;
  const mTable = lTable + tableSectors;
  let next = mTable + tableSectors;
  for (const d of dirs) d.sector = next++;
  const files: { sector: number; data: Buffer }[] = [];
  const extents = dirs.map((d, i) => {
    const self = record(Buffer.alloc(1), d.sector, SECTOR, true);
    const parent = record(Buffer.from([1]), dirs[d.parent - 1]!.sector, SECTOR, true);
    const entries = d.children.map(([name, value]) => {
      if (!Buffer.isBuffer(value)) return record(Buffer.from(isoName(name, true), 'ascii'), dirs.find((c, j) => j > i && c.parent === i + 1 && c.name === isoName(name, true))!.sector, SECTOR, true);
      const sector = next;
      next += sectorsFor(value.length);
      files.push({ sector, data: value });
      return record(Buffer.from(isoName(name, false), 'ascii'), sector, value.length, false);
    });
    const extent = Buffer.concat([self, parent, ...entries]);
    if (extent.length > SECTOR) throw new Error('a config drive directory must fit in one sector');
    return extent;
  });
  const image = Buffer.alloc(next * SECTOR);
  primaryDescriptor(label, next, tableSize, lTable, mTable, record(Buffer.alloc(1), dirs[0]!.sector, SECTOR, true)).copy(image, 16 * SECTOR);
  image[17 * SECTOR] = 255;
  image.write('CD001', 17 * SECTOR + 1, 'ascii');
  image[17 * SECTOR + 6] = 1;
  pathTable(dirs, false).copy(image, lTable * SECTOR);
  pathTable(dirs, true).copy(image, mTable * SECTOR);
  dirs.forEach((d, i) => extents[i]!.copy(image, d.sector * SECTOR));
  for (const f of files) f.data.copy(image, f.sector * SECTOR);
  return image;
}
