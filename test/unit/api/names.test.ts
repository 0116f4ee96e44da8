import { FEILONG_OS_VERSION_PATTERN, isSafeImageName, isSafeOsVersion, REMOTE_HOST_PATTERN } from '../../../src/api/index.js';

describe('name patterns shared by the API, REST and the image repository', () => {
  it('takes image names that are one folder name, never one that climbs out', () => {
    for (const ok of ['rhel8.6-base', 'Img_1', '0day']) expect(isSafeImageName(ok)).toBe(true);
    for (const bad of ['a..b', '.hidden', 'a/b', '', 'x'.repeat(129)]) expect(isSafeImageName(bad)).toBe(false);
  });

  it('takes any distro as an OS version folder, in any case, but no separator or ..', () => {
    for (const ok of ['rhel8.6', 'RHEL9', 'centos7', 'sles15sp4']) expect(isSafeOsVersion(ok)).toBe(true);
    for (const bad of ['rhel..8', '../etc', 'a b', '-rhel', 'x'.repeat(33)]) expect(isSafeOsVersion(bad)).toBe(false);
  });

  it("REST's os_version is the reference's list of releases", () => {
    const feilong = new RegExp(FEILONG_OS_VERSION_PATTERN);
    for (const ok of ['rhel8.6', 'RHEL10.2', 'redhat7', 'sles15sp4', 'SUSE12.3', 'ubuntu22.04.1', 'rhcos4.6.8']) expect(feilong.test(ok)).toBe(true);
    for (const bad of ['centos7', 'rhel5', 'ubuntu18', 'win10', 'rhel8.6.1']) expect(feilong.test(bad)).toBe(false);
  });

  it('takes user@host remote hosts only', () => {
    const remote = new RegExp(REMOTE_HOST_PATTERN);
    for (const ok of ['root@10.0.0.1', 'me@files.example.com']) expect(remote.test(ok)).toBe(true);
    for (const bad of ['10.0.0.1', 'root@', 'a;b@host.example']) expect(remote.test(bad)).toBe(false);
  });
});
