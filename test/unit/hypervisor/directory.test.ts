import {
  formatMemoryMB,
  formatRecord,
  memoryToMB,
  parseDirectory,
  renderDirectory,
  sizeToBlocks,
  sizeToCylinders,
  sizeToUnits,
} from '../../../src/hypervisor/directory/directory.js';
import type { GuestDefinition } from '../../../src/hypervisor/port.js';

const pad = (s: string) => s.padEnd(72, ' ');

describe('memory and size units', () => {
  it.each([
    ['2G', 2048],
    ['1000M', 1000],
    ['1024m', 1024],
    ['64G', 65536],
    ['512', 512],
    ['1T', 1048576],
  ])('memoryToMB(%s) = %d', (text, mb) => {
    expect(memoryToMB(text)).toBe(mb);
  });

  it.each([
    [2048, '2G'],
    [1000, '1000M'],
    [1025, '1025M'],
    [65536, '64G'],
  ])('formatMemoryMB(%d) = %s', (mb, text) => {
    expect(formatMemoryMB(mb)).toBe(text);
  });

  it('rejects a storage size that is not a number with a unit', () => {
    expect(() => memoryToMB('lots')).toThrow(/invalid memory/);
  });

  it.each([
    ['10G', 14564],
    ['1G', 1457],
    ['512M', 729],
    ['3338', 3338],
  ])('sizeToCylinders(%s) = %d', (size, cyl) => {
    expect(sizeToCylinders(size)).toBe(cyl);
  });

  it.each([
    ['1G', 2097152],
    ['512M', 1048576],
    ['1000', 1000],
  ])('sizeToBlocks(%s) = %d', (size, blocks) => {
    expect(sizeToBlocks(size)).toBe(blocks);
  });

  it('picks cylinders for 3390 and blocks for FBA device types', () => {
    expect(sizeToUnits('3390', '1G')).toBe(1457);
    expect(sizeToUnits('9336', '1G')).toBe(2097152);
    expect(sizeToUnits('FB-512', '1G')).toBe(2097152);
  });
});

describe('parseDirectory', () => {
  const captured = [
    'USER GT@PONG @SM8PI@  1G 1G ABCDEFG',
    'IPL CMS',
    'MACHINE ESA 4',
    '*PW00= 7CE2D4F8D7C97C40',
    '  CONSOLE   0009 3215',
    'MDISK 0888 3390 1457 10 LX3002 W READ WRITE MULTIPLE',
    'MDISK 0777 3390 29129 1000 LX3000 W READ WRITE MULTIPLE',
  ].map(pad);

  it('reads a captured 72-column entry with padded fields', () => {
    const dir = parseDirectory(captured);
    expect(dir).toMatchObject({ userid: 'GT@PONG', memory: '1G', maxMemory: '1G', maxCpus: 4, cpus: 0, ipl: 'CMS' });
    expect(dir.disks).toEqual([
      { vdev: '0888', deviceType: '3390', start: 1457, size: 10, volser: 'LX3002', mode: 'W' },
      { vdev: '0777', deviceType: '3390', start: 29129, size: 1000, volser: 'LX3000', mode: 'W' },
    ]);
    expect(dir.lines[4]).toBe('CONSOLE 0009 3215');
  });

  it('ignores sequence numbers in columns 73-80', () => {
    const dir = parseDirectory([pad('USER A B 2G 4G G') + '00000001']);
    expect(dir.lines).toEqual(['USER A B 2G 4G G']);
  });

  it.each<[string, string[], Partial<ReturnType<typeof parseDirectory>>]>([
    ['COMMAND DEFINE CPU lines', ['USER X P 2G 64G G', 'MACHINE ESA 8', 'COMMAND DEFINE CPU 00 TYPE IFL', 'COMMAND DEFINE CPU 01 TYPE IFL'], { cpus: 2, maxCpus: 8 }],
    ['CPU statements without MACHINE max', ['USER X P 2G 64G G', 'CPU 00 BASE', 'CPU 01', 'CPU 02'], { cpus: 3, maxCpus: 3 }],
    ['no CPU at all', ['USER X P 2G 64G G'], { cpus: 0, maxCpus: 1 }],
    ['abbreviated DEF CPU, duplicates counted once', ['USER X P 2G 64G G', 'COMMAND DEF CPU 01', 'CPU 01'], { cpus: 1 }],
    ['INCLUDE profile', ['USER X P 2G 64G G', 'INCLUDE osdflt'], { profile: 'OSDFLT' }],
    ['lower-case input', ['user x p 1024m 2g g'], { userid: 'X', memory: '1024M', maxMemory: '2G' }],
  ])('reads %s', (_name, records, expected) => {
    expect(parseDirectory(records)).toMatchObject(expected);
  });

  it('merges several NICDEF lines of one vdev', () => {
    const dir = parseDirectory([
      'USER X P 2G 64G G',
      'NICDEF 1000 TYPE QDIO MACID 0E4E8E',
      'NICDEF 1000 LAN SYSTEM VSW2 VLAN 10 PORTTYPE ACCESS',
      'NICDEF 1003 TYPE QDIO LAN SYSTEM XCATVSW2 DEVICES 3',
    ]);
    expect(dir.nics).toEqual([
      { vdev: '1000', vswitch: 'VSW2', macId: '0E4E8E', vlan: 10 },
      { vdev: '1003', vswitch: 'XCATVSW2' },
    ]);
  });

  it('reads DEDICATE, V-DISK and keeps ACCOUNT, LOGONBY, LOADDEV and comments as lines', () => {
    const dir = parseDirectory([
      'USER X P 2G 64G G',
      'ACCOUNT ACC1',
      'LOGONBY ADMIN1 ADMIN2',
      'LOADDEV PORTNAME 5005076300C20B8E',
      'DEDICATE 1D00 1D00',
      'MDISK 0102 FB-512 V-DISK 4194296 MWV',
      '* A COMMENT',
    ]);
    expect(dir.dedicates).toEqual([{ vdev: '1D00', rdev: '1D00' }]);
    expect(dir.disks).toEqual([{ vdev: '0102', deviceType: 'FB-512', start: 0, size: 4194296, volser: 'V-DISK', mode: 'MWV' }]);
    expect(dir.lines).toContain('* A COMMENT');
    expect(dir.lines).toContain('LOGONBY ADMIN1 ADMIN2');
  });

  it('rejects an entry without USER statement', () => {
    expect(() => parseDirectory(['INCLUDE OSDFLT'])).toThrow(/no USER/);
  });
});

describe('renderDirectory', () => {
  const base: GuestDefinition = { userid: 'test0001', vcpus: 2, maxCpus: 32, memory: '2048M', maxMemory: '64G', profile: 'osdflt' };

  it('writes the statements of feilong guest_create in its order', () => {
    expect(renderDirectory({ ...base, ipl: { device: '0100' } })).toEqual([
      'USER TEST0001 LBYONLY 2G 64G G',
      'INCLUDE OSDFLT',
      'MACHINE ESA 32',
      'COMMAND SET VCONFIG MODE LINUX',
      'COMMAND DEFINE CPU 00 TYPE IFL',
      'COMMAND DEFINE CPU 01 TYPE IFL',
      'SHARE RELATIVE 200',
      'IPL 0100',
      'COMMAND DEF STOR INITIAL STANDBY REMAINDER',
    ]);
  });

  it('places account, IPL parameters, LOADDEV, DEDICATE and comments where feilong does', () => {
    const out = renderDirectory({
      ...base,
      vcpus: 1,
      memory: '1000M',
      account: 'acct1',
      ipl: { device: '0100', param: 'ABC', loadparm: 'XY' },
      loaddev: { portname: '0x5005076300C20B8E', lun: '0x5241000000000000' },
      dedicate: ['1d00'],
      comments: ['hello world'],
    });
    expect(out).toEqual([
      'USER TEST0001 LBYONLY 1000M 64G G',
      'INCLUDE OSDFLT',
      'MACHINE ESA 32',
      'ACCOUNT ACCT1',
      'COMMAND SET VCONFIG MODE LINUX',
      'COMMAND DEFINE CPU 00 TYPE IFL',
      'SHARE RELATIVE 100',
      'IPL 0100 PARM ABC LOADPARM XY',
      'COMMAND DEF STOR INITIAL STANDBY REMAINDER',
      'LOADDEV PORTNAME 5005076300C20B8E',
      'LOADDEV LUN 5241000000000000',
      'DEDICATE 1D00 1D00',
      '* HELLO WORLD',
    ]);
  });

  it('boots from SCSI with IPL LOADDEV when portname, lun and alterdev are all given', () => {
    const out = renderDirectory({
      ...base,
      ipl: { device: '5000' },
      loaddev: { portname: '5005', lun: '0001', alterdev: '5001:5006' },
    });
    expect(out).toContain('IPL LOADDEV');
    expect(out).toContain('LOADDEV DEVICE 5000');
    expect(out).toContain('LOADDEV SCSI ALTERNATE 5001 PORT 5006');
  });

  it('round-trips through parseDirectory', () => {
    const dir = parseDirectory(renderDirectory({ ...base, vcpus: 3, maxCpus: 4 }));
    expect(dir).toMatchObject({ userid: 'TEST0001', memory: '2G', maxMemory: '64G', cpus: 3, maxCpus: 4, profile: 'OSDFLT' });
  });

  it('formats records as SMAPI returns them: 72 bytes, upper case, single blanks', () => {
    const r = formatRecord('user  gt@pong  pw 1g 1g   g');
    expect(r).toHaveLength(72);
    expect(r.trimEnd()).toBe('USER GT@PONG PW 1G 1G G');
  });
});
