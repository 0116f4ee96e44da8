import { mapImages } from '../../../src/migrate/map-images.js';
import type { FeilongImageRow } from '../../../src/migrate/feilong-db.js';

const options = { host: 'lpar1', repository: '/var/lib/zvmsdk/images', rootVdev: '0100', now: '2026-01-01T00:00:00Z' };

function aRow(row: Partial<FeilongImageRow> = {}): FeilongImageRow {
  return {
    imagename: 'rhel92base', imageosdistro: 'rhel9.2', md5sum: '0123456789abcdef0123456789abcdef', diskSizeUnits: '1100:CYL',
    imageSizeInBytes: '1048576', type: 'rootonly', comments: null, ...row,
  };
}

describe('mapImages: OS versions', () => {
  it('maps an image whose OS version is a safe folder name, into the repository path', () => {
    const plan = mapImages([aRow({ imageosdistro: 'RHEL9.2' })], options);
    expect(plan.unmapped).toEqual([]);
    expect(plan.items[0].status).toMatchObject({ path: '/var/lib/zvmsdk/images/netboot/rhel9.2/rhel92base/0100' });
  });

  it.each(['rhel..9', '..', 'a/b', '.rhel9', ''])('leaves an image with OS version %j unmapped, as the repository paths refuse it', (os) => {
    const plan = mapImages([aRow({ imageosdistro: os })], options);
    expect(plan.items).toEqual([]);
    expect(plan.unmapped).toEqual([{ source: 'sdk_image.sqlite image rhel92base', reason: `os version ${JSON.stringify(os)} is not a safe repository folder name like rhel8.6` }]);
  });
});
