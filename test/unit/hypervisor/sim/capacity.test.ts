import { sizeToCylinders } from '../../../../src/hypervisor/directory/directory.js';
import { createSimHost, defaultSimConfig } from '../../../../src/hypervisor/sim/index.js';
import { addDisk, createGuest } from './helpers.js';

describe('default simulator capacity', () => {
  it('fits 10 000 guests with two 1G disks each in POOL1, one extent per volume', () => {
    const cyl = sizeToCylinders('1G');
    const pool = defaultSimConfig().pools.find((p) => p.name === 'POOL1')!;
    const disksPerVolume = pool.volumes.map((v) => Math.floor(((v.cylinders ?? 0) - 1) / cyl));
    expect(disksPerVolume.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(20_000);
  });

  it('allocates many guests with the default config and accounts every extent', async () => {
    const host = createSimHost();
    const cyl = sizeToCylinders('1G');
    for (let i = 0; i < 500; i++) {
      const u = `CAP${String(i).padStart(4, '0')}`;
      await createGuest(host, u);
      for (const vdev of ['100', '101']) expect((await addDisk(host, u, vdev, cyl)).rc).toBe(0);
    }
    const pool1 = host.stats().pools.find((p) => p.name === 'POOL1')!;
    expect(pool1.usedUnits).toBe(1000 * cyl);
    expect(host.stats().guests).toBe(500);
  });
});
