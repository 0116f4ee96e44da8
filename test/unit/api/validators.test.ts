import { validateResource, API_VERSION } from '../../../src/api/index.js';
import { InvalidSpecError } from '../../../src/errors.js';

const guest = (spec: Record<string, unknown>) => ({
  apiVersion: API_VERSION,
  kind: 'ZGuest',
  metadata: { name: 'g1', namespace: 'default' },
  spec: { userid: 'LINUX01', vcpus: 2, memory: '2G', ...spec },
});

describe('ZGuest validation', () => {
  it('accepts a minimal guest', () => {
    expect(() => validateResource(guest({}))).not.toThrow();
  });
  it('accepts the unquotable power states and the On/Off of release 0.1.0', () => {
    for (const powerState of ['Running', 'Stopped', 'Paused', 'On', 'Off']) expect(() => validateResource(guest({ powerState }))).not.toThrow();
    expect(() => validateResource(guest({ powerState: true }))).toThrow(InvalidSpecError);
  });
  it('says to quote a device number given as a number (YAML `vdev: 1000`)', () => {
    expect(() => validateResource(guest({ disks: [{ size: '1G', vdev: 1000 }] }))).toThrow('/spec/disks/0/vdev: a device number is text: quote it, e.g. "0100"');
  });
  it.each([
    ['vcpus 0', { vcpus: 0 }, '/spec/vcpus'],
    ['vcpus 65', { vcpus: 65 }, '/spec/vcpus'],
    ['a 9-character userid', { userid: 'ABCDEFGHI' }, '/spec/userid'],
    ['memory without suffix', { memory: '2048' }, '/spec/memory'],
    ['5-digit memory', { memory: '10000M' }, '/spec/memory'],
    ['malformed disk size', { disks: [{ size: '10X' }] }, '/spec/disks/0/size'],
    ['unknown disk format', { disks: [{ size: '1G', format: 'ntfs' }] }, '/spec/disks/0/format'],
    ['bad disk pool', { disks: [{ size: '1G', pool: 'POOL1' }] }, '/spec/disks/0/pool'],
    ['5-digit vdev', { disks: [{ size: '1G', vdev: '10000' }] }, '/spec/disks/0/vdev'],
  ])('rejects %s with the schema path', (_label, spec, path) => {
    try {
      validateResource(guest(spec));
      throw new Error('expected InvalidSpecError');
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidSpecError);
      expect((err as InvalidSpecError).issues.map((i) => i.path)).toContain(path);
    }
  });
});
