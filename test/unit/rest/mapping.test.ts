import { resolveRestConfig } from '../../../src/rest/config.js';
import { computeCreatedDisks, computeDisks, computeGuestSpec, computeMemory, computeRequestField, inRequestTerms, nextVdev } from '../../../src/rest/guests/mapping.js';
import { InvalidSpecError } from '../../../src/errors.js';
import { FeilongError } from '../../../src/rest/feilong-error.js';
import { computeNicVdev, planInterfaces } from '../../../src/rest/guests/nics.js';
import { computeGuestInfo, computeMinidisk, maskDirectory } from '../../../src/rest/guests/outputs.js';
import type { GuestState } from '../../../src/hypervisor/port.js';

const config = resolveRestConfig({ diskPool: 'ECKD:POOL1' });

describe('POST /guests body to ZGuest spec', () => {
  it.each([[2048, '2G'], [1000, '1000M'], [1025, '1025M'], [65536, '64G']])('writes %i MB as %s', (mb, text) => {
    expect(computeMemory(mb)).toBe(text);
  });

  it('refuses memory that needs more than four digits', () => {
    expect(() => computeMemory(10001)).toThrow(/can not be written/);
  });

  it('leaves max CPUs, max memory and profile to the class, ZHost and built-in defaults, and creates the guest logged off', () => {
    expect(computeGuestSpec({ userid: 'abc', vcpus: 2, memory: 4096 }, config)).toEqual({
      userid: 'ABC', host: 'default', vcpus: 2, memory: '4G', powerState: 'Stopped', disks: [],
    });
  });

  it('refuses vcpus above the ZHost default maximum, and above the built-in one without it', () => {
    expect(() => computeGuestSpec({ userid: 'a', vcpus: 17, memory: 1024 }, config, undefined, { maxCpus: 16 })).toThrow(/vcpus 17 exceeds max_cpu 16/);
    expect(computeGuestSpec({ userid: 'a', vcpus: 17, memory: 1024 }, config)).toMatchObject({ vcpus: 17 });
    expect(() => computeGuestSpec({ userid: 'a', vcpus: 33, memory: 1024 }, config)).toThrow(/vcpus 33 exceeds max_cpu 32/);
  });

  it('maps ipl, loaddev, dedicate, account and comments', () => {
    const spec = computeGuestSpec({
      userid: 'abc', vcpus: 1, memory: 1024, ipl_from: 'cms', ipl_loadparam: 'X', loaddev: { portname: '5005', lun: '01' },
      dedicate_vdevs: ['1a0'], account: 'acct', comments: ['one'],
    }, config);
    expect(spec).toMatchObject({ ipl: { device: 'cms', loadparm: 'X' }, loaddev: { portname: '5005', lun: '01' }, dedicate: ['1A0'], account: 'acct', comments: ['one'] });
  });

  it('refuses vcpus above max_cpu', () => {
    expect(() => computeGuestSpec({ userid: 'a', vcpus: 9, memory: 1024, max_cpu: 8 }, config)).toThrow(/exceeds max_cpu/);
  });

  it('with a class carries only what the request gave', () => {
    const cls = { vcpus: 2, memory: '1G', maxMemory: '4G', disks: [{ size: '1G', boot: true }] };
    expect(computeGuestSpec({ userid: 'abc', class: 'small' }, config, cls)).toEqual({
      userid: 'ABC', host: 'default', class: 'small', powerState: 'Stopped',
    });
    expect(computeGuestSpec({ userid: 'abc', class: 'small', vcpus: 3, max_mem: '2g', disk_list: [{ size: '5g' }] }, config, cls))
      .toMatchObject({ vcpus: 3, maxMemory: '2G', disks: [{ size: '5g', vdev: '0100' }] });
  });

  it('with a class refuses what neither gives, and vcpus above the class maximum', () => {
    expect(() => computeGuestSpec({ userid: 'a', class: 'c' }, config, { vcpus: 1 })).toThrow(/memory set by neither the spec nor ZGuestClass c/);
    expect(() => computeGuestSpec({ userid: 'a', class: 'c' }, config, { vcpus: 4, memory: '1G', maxCpus: 2 })).toThrow(/vcpus 4 exceeds max_cpu 2/);
  });

  it('maps cschedule, cshare, rdomain and pcif to their spec fields', () => {
    expect(computeGuestSpec({ userid: 'a', vcpus: 1, memory: 1024, cschedule: 'pool1', cshare: 'relative   200', rdomain: 'dom1', pcif: '1f:2a00' }, config))
      .toMatchObject({ cpuPool: 'POOL1', share: 'RELATIVE 200', relocationDomain: 'DOM1', pciFunctions: ['1F:2A00'] });
  });

  it('numbers disks from the root vdev, marks the boot disk format none and uses the default pool', () => {
    const disks = computeDisks([{ size: '1g', is_boot_disk: true, format: 'ext4' }, { size: '2g', vdev: '200' }, { size: '3g', disk_pool: 'fba:p2' }], config, 0x100, true);
    expect(disks).toEqual([
      { size: '1g', vdev: '0100', format: 'none', pool: 'ECKD:POOL1', boot: true },
      { size: '2g', vdev: '0200', pool: 'ECKD:POOL1' },
      { size: '3g', vdev: '0102', pool: 'FBA:p2' },
    ]);
  });

  it('answers created disks from status, falling back to the request', () => {
    const out = computeCreatedDisks(
      [{ size: '1g', vdev: '0100', pool: 'ECKD:POOL1', boot: true, format: 'none' }, { size: '10', vdev: '0101', pool: 'ECKD:POOL1' }],
      [{ vdev: '0101', size: '0.1G', format: 'ext4', diskPool: 'ECKD:POOL1' }],
    );
    expect(out).toEqual([
      { size: '1g', is_boot_disk: true, disk_pool: 'ECKD:POOL1', vdev: '0100', format: 'none' },
      { size: '0.1G', disk_pool: 'ECKD:POOL1', vdev: '0101', format: 'ext4' },
    ]);
  });

  it('starts added disks after the highest vdev in use', () => {
    expect(nextVdev([], '0100')).toBe(0x100);
    expect(nextVdev(['0100', '0105'], '0100')).toBe(0x106);
  });
});

describe('NIC vdevs (docs/rest-interface.md §3.9)', () => {
  it('starts at 1000 and steps by three', () => {
    expect(computeNicVdev([], undefined, 'A')).toBe('1000');
    expect(computeNicVdev(['1000'], undefined, 'A')).toBe('1003');
  });

  it('refuses a requested vdev within two of an existing NIC with 409 rs6', () => {
    expect(() => computeNicVdev(['1000'], '1002', 'A')).toThrow(/has already been used/);
    expect(computeNicVdev(['1000'], '1003', 'A')).toBe('1003');
  });

  it('gives each interface a NIC and echoes nic_vdev', () => {
    const plan = planInterfaces({ userid: 'A', vcpus: 1, memory: '1G' }, 'rhel8.6', [{ ip_addr: '10.0.0.2', cidr: '10.0.0.0/24' }, { osa_device: '0b00' }]);
    expect(plan.echoed.map((e) => e.nic_vdev)).toEqual(['1000', '1003']);
    expect(plan.nics).toEqual([{ vdev: '1000' }]);
    expect(plan.network.interfaces[1]).toEqual({ nicVdev: '1003', osaDevice: '0b00' });
  });
});

describe('live outputs', () => {
  const off: GuestState = {
    userid: 'A', power: 'off',
    directory: { userid: 'A', lines: [], memory: '2G', maxMemory: '2048m', maxCpus: 4, cpus: 2, disks: [], nics: [], dedicates: [] },
  };

  it('reports a logged-off guest from its directory', () => {
    expect(computeGuestInfo(off, undefined)).toEqual({ power_state: 'off', max_mem_kb: 2097152, mem_kb: 0, num_cpu: 2, cpu_time_us: 0, online_cpu_num: 0, os_distro: '', kernel_info: '' });
  });

  it('masks only the password of the USER line', () => {
    expect(maskDirectory(['USER  A  SECRET 2G 4G G', 'INCLUDE OSDFLT', 'USER X Y Z'])).toEqual(['USER A ****** 2G 4G G ', 'INCLUDE OSDFLT', 'USER X Y Z']);
  });

  it('describes FBA minidisks in blocks and read-only modes as R/O', () => {
    expect(computeMinidisk({ vdev: '0101', deviceType: 'FB-512', start: 0, size: 2048, volser: 'V1', mode: 'RR' })).toMatchObject({ device_type: '9336', device_units: 'Blocks', access_type: 'R/O' });
  });
});

describe('a refused ZGuest path in the words of the request', () => {
  it.each([
    ['/spec/disks/2/size', 'disk_list[2].size'],
    ['/spec/disks/0/pool', 'disk_list[0].disk_pool'],
    ['/spec/maxMemory', 'max_mem'],
    ['/spec/profile', 'user_profile'],
    ['/spec/ipl/loadparm', 'ipl_loadparam'],
    ['/spec/comments/1', 'comment_list[1]'],
    ['/spec/loaddev/lun', 'loaddev.lun'],
    ['/spec/pciFunctions/0', 'pcif'],
    ['/metadata/name', 'userid'],
  ])('%s → %s', (path, field) => {
    expect(computeRequestField(path)).toBe(field);
  });

  it('counts added disks from their own list, and names no field for a path no request field fills', () => {
    expect(computeRequestField('/spec/disks/3/size', { list: 'disk_info.disk_list', first: 2 })).toBe('disk_info.disk_list[1].size');
    expect(computeRequestField('/spec/host')).toBeUndefined();
  });

  it('rewrites every issue with its value and drops a Kubernetes field path from the text', () => {
    const err = new InvalidSpecError('invalid ZGuest: …', [
      { path: '/spec/disks/0/size', message: 'must match pattern "x"' },
      { path: '/spec/vcpus', message: 'Invalid value: 0: spec.vcpus in body should be greater than or equal to 1' },
      { path: '/spec/host', message: 'must be a host' },
    ]);
    const out = inRequestTerms(err, { spec: { disks: [{ size: 'abc' }], vcpus: 0 } }) as FeilongError;
    expect(out).toBeInstanceOf(FeilongError);
    expect(out.fields.errmsg).toBe("Invalid API arg format, error: disk_list[0].size: 'abc' must match pattern \"x\"; vcpus: 0 Invalid value: 0: should be greater than or equal to 1; must be a host");
  });

  it('passes any other error through', () => {
    const other = new Error('boom');
    expect(inRequestTerms(other, { spec: {} })).toBe(other);
  });
});
