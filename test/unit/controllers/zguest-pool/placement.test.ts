import { API_VERSION, type ZGuest, type ZGuestPool, type ZHost } from '../../../../src/api/index.js';
import { fits, hostRooms, noRoomMessage, pickHost, reserve, templateSize, type HostRoom } from '../../../../src/controllers/zguest-pool/placement.js';
import { planPool } from '../../../../src/controllers/zguest-pool/plan.js';

const NOW = new Date(Date.UTC(2026, 0, 1));

const zhost = (name: string, info?: { memory_mb: number; vcpus: number }): ZHost => ({
  apiVersion: API_VERSION, kind: 'ZHost', metadata: { name }, spec: { simulated: true }, ...(info ? { status: { info } } : {}),
});
const guest = (userid: string, host: string, memory: string, pool?: string): ZGuest => ({
  apiVersion: API_VERSION, kind: 'ZGuest',
  metadata: { name: userid.toLowerCase(), namespace: 'default', ...(pool ? { labels: { 'zvm.dev/pool': pool } } : {}) },
  spec: { userid, host, vcpus: 1, memory },
});
const pool = (spec: Partial<ZGuestPool['spec']> = {}): ZGuestPool => ({
  apiVersion: API_VERSION, kind: 'ZGuestPool', metadata: { name: 'web', namespace: 'default', uid: 'u', generation: 1 },
  spec: { replicas: 3, useridPrefix: 'WEB', template: { spec: { vcpus: 2, memory: '3G' } }, ...spec },
});
const room = (name: string, poolGuests: number, committedMB: number, memoryMB?: number, cpus?: number): HostRoom => ({ name, poolGuests, committedMB, memoryMB, cpus });

describe('placement: host rooms from ZHost facts and the store', () => {
  it('takes capacity from status.info and counts every ZGuest\'s memory on the host, the pool\'s own guests apart', () => {
    const mine = guest('WEB00001', 'a', '2G', 'web');
    // a new member whose class is not recorded yet weighs the template's size; another such guest nothing known
    const fresh: ZGuest = { ...guest('WEB00002', 'a', '1G', 'web'), spec: { userid: 'WEB00002', host: 'a', class: 'c' } };
    const recorded: ZGuest = { ...guest('REC', 'a', '1G'), spec: { userid: 'REC', host: 'a', class: 'c' }, status: { class: { name: 'c', revision: 1, values: { memory: '256M' } } } };
    const unknown: ZGuest = { ...guest('UNK', 'a', '1G'), spec: { userid: 'UNK', host: 'a', class: 'c' } };
    const all = [mine, fresh, recorded, unknown, guest('OTHER', 'a', '512M'), guest('B1', 'b', '1G')];
    const rooms = hostRooms(['a', 'b', 'c'], [zhost('a', { memory_mb: 8192, vcpus: 4 }), zhost('b')], all, [mine, fresh], { memoryMB: 3072 });
    expect(rooms).toEqual([
      room('a', 2, 2048 + 3072 + 256 + 512, 8192, 4),
      room('b', 0, 1024, undefined, undefined), // facts not read yet: no known limit
      room('c', 0, 0, undefined, undefined), // no ZHost at all (standalone's built-in host before its facts)
    ]);
  });

  it('sizes the template with its class applied, the template winning', () => {
    expect(templateSize(pool({ template: { spec: { class: 'c', memory: '2G' } } }), { vcpus: 4, memory: '8G' })).toEqual({ vcpus: 4, memoryMB: 2048 });
    // incomplete: what is known is weighed
    expect(templateSize(pool({ template: { spec: { class: 'c' } } }), { vcpus: 4 })).toEqual({ vcpus: 4, memoryMB: undefined });
  });
});

describe('placement: which host takes the next guest', () => {
  const size = { vcpus: 2, memoryMB: 3072 };

  it('fits while committed plus the guest stay within real memory and the CPUs within the host\'s', () => {
    expect(fits(room('a', 0, 5120, 8192, 4), size)).toBe(true); // exactly full
    expect(fits(room('a', 0, 5121, 8192, 4), size)).toBe(false);
    expect(fits(room('a', 0, 0, 8192, 1), size)).toBe(false);
    expect(fits(room('a', 99, 1e9), size)).toBe(true); // no facts: unbounded
  });

  it('picks the fewest pool guests among hosts with room, the first listed on a tie', () => {
    expect(pickHost([room('a', 1, 0, 8192), room('b', 1, 0, 8192), room('c', 2, 0, 8192)], size)?.name).toBe('a');
    expect(pickHost([room('a', 0, 6000, 8192), room('b', 3, 0, 8192)], size)?.name).toBe('b');
    expect(pickHost([room('a', 0, 6000, 8192)], size)).toBeUndefined();
    expect(reserve([room('a', 0, 100, 8192)], 'a', size)).toEqual([room('a', 1, 3172, 8192)]);
  });

  it('says why no host can', () => {
    expect(noRoomMessage([], size)).toBe('no ZHost matches the pool\'s hostSelector');
    expect(noRoomMessage([room('a', 2, 6144, 8192, 4)], size)).toBe('no host can take another guest of 2 CPUs and 3072 MB: a (4 CPUs, 6144 of 8192 MB committed)');
  });
});

describe('planPool with placement', () => {
  it('spreads fewest first, skips a full host, and stops with NoCapacity when none has room', () => {
    const zhosts = [zhost('big', { memory_mb: 1024 * 1024, vcpus: 16 }), zhost('small', { memory_mb: 8192, vcpus: 4 })];
    const plan = planPool({ pool: pool({ replicas: 6 }), guests: [], taken: new Set(), classRevision: undefined, now: NOW, placement: { hosts: ['big', 'small'], zhosts, guests: [], size: { vcpus: 2, memoryMB: 3072 } } });
    expect(plan.creates.map((c) => c.host)).toEqual(['big', 'small', 'big', 'small', 'big', 'big']);
    expect(plan.stalled).toBeUndefined();

    const full = planPool({ pool: pool({ replicas: 3 }), guests: [], taken: new Set(), classRevision: undefined, now: NOW, placement: { hosts: ['small'], zhosts, guests: [guest('X', 'small', '4G')], size: { vcpus: 2, memoryMB: 3072 } } });
    expect(full.creates.map((c) => c.userid)).toEqual(['WEB00001']);
    // the counter is not used up by guests that were not made
    expect(full.lastIndex).toBe(1);
    expect(full.stalled).toEqual({ reason: 'NoCapacity', message: 'no host can take another guest of 2 CPUs and 3072 MB: small (4 CPUs, 7168 of 8192 MB committed)' });
  });
});
