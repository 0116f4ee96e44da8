import { API_VERSION, expandFcpDevices, fcpDevicesProblem, validateResource } from '../../../src/api/index.js';
import { InvalidSpecError } from '../../../src/errors.js';

const template = (fcpDevices: string) => ({
  apiVersion: API_VERSION, kind: 'ZFcpTemplate', metadata: { name: 't1' }, spec: { name: 'tmpl', fcpDevices },
});

describe('FCP device ranges', () => {
  it.each([
    ['1a00-1a03;1b00-1b03', [['1a00', '1a01', '1a02', '1a03'], ['1b00', '1b01', '1b02', '1b03']]],
    ['0011-0013;0015;0017-0018', [['0011', '0012', '0013'], ['0015'], ['0017', '0018']]],
    ['1A00 - 1A01, 1A05 ; 1B00', [['1a00', '1a01', '1a05'], ['1b00']]],
    ['1a00-1a00', [['1a00']]],
    ['', []],
  ])('expands %j into its paths', (text, paths) => {
    expect(fcpDevicesProblem(text)).toBeUndefined();
    expect(expandFcpDevices(text)).toEqual(paths);
  });

  it.each([
    ['1a0', 'not like'],
    ['1a000', 'not like'],
    ['1a00-', 'not like'],
    ['1a00;;1b00', 'not like'],
    ['1a00-1b00-1c00', 'not like'],
    ['zz00', 'not like'],
    ['1a00;', 'not like'],
    ['1a03-1a00', 'not ascending'],
    ['1a00-1a02;1a01', 'listed twice'],
  ])('refuses %j', (text, why) => {
    expect(fcpDevicesProblem(text)).toContain(why);
  });

  it('makes validateResource refuse a malformed or descending range with the field path', () => {
    expect(() => validateResource(template('1a00-1a03;1b00-1b03'))).not.toThrow();
    for (const bad of ['1a0-1a03', '1a03-1a00']) {
      try {
        validateResource(template(bad));
        throw new Error('accepted');
      } catch (err) {
        expect(err).toBeInstanceOf(InvalidSpecError);
        expect((err as InvalidSpecError).issues[0].path).toBe('/spec/fcpDevices');
      }
    }
  });

  it('validates a ZVolume connection: WWPNs and LUN are 0x and 16 hex digits, FCPs 4 hex digits', () => {
    const vol = (over: Record<string, unknown>) => ({
      apiVersion: API_VERSION, kind: 'ZVolume', metadata: { name: 'v1', namespace: 'default' },
      spec: { assignerId: 'LINUX01', fcps: ['1a00'], targetWwpns: ['0x5005076802100c1b'], lun: '0x0000000000000000', osVersion: 'rhel8', multipath: true, ...over },
    });
    expect(() => validateResource(vol({}))).not.toThrow();
    expect(() => validateResource(vol({ lun: '0x123' }))).toThrow(InvalidSpecError);
    expect(() => validateResource(vol({ targetWwpns: ['5005076802100c1b'] }))).toThrow(InvalidSpecError);
    expect(() => validateResource(vol({ fcps: ['1a0'] }))).toThrow(InvalidSpecError);
  });
});
