import { oneHostOf } from '../../../src/cmd/sharded-operator.js';
import { createHostRegistry, type Hypervisor } from '../../../src/hypervisor/index.js';

describe('a host operator\'s view of the replica\'s hosts', () => {
  it('lists only its own host (what the drift detector and orphan sweeper walk), while it is connected', () => {
    const all = createHostRegistry();
    const h1 = { name: 'h1' } as unknown as Hypervisor;
    all.register('h1', h1);
    all.register('h2', { name: 'h2' } as unknown as Hypervisor);
    expect(oneHostOf(all, 'h1').hosts()).toEqual(['h1']);
    expect(oneHostOf(all, 'h3').hosts()).toEqual([]);
    expect(oneHostOf(all, 'h1').forHost('h1')).toBe(h1);
  });

  it('leaves the replica\'s connections open when the host operator is done', async () => {
    const all = createHostRegistry();
    let closed = 0;
    all.register('h1', { close: async () => { closed += 1; } } as unknown as Hypervisor);
    await oneHostOf(all, 'h1').close();
    expect(closed).toBe(0);
    expect(all.hosts()).toEqual(['h1']);
  });
});
