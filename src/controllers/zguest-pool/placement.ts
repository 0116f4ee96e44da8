import { hostOf, memoryToMB, type GuestClassValues, type ZGuest, type ZGuestPool, type ZHost } from '../../api/index.js';
import { resolveGuestSpec } from '../kit/guest-class.js';

/** The size of one guest, as placement weighs it; a value nobody gives weighs nothing. */
export interface GuestSize {
  vcpus?: number;
  memoryMB?: number;
}

/** One host a pool may place on: its capacity from its facts, and what is on it already. */
export interface HostRoom {
  name: string;
  /** the pool's own guests on it: guests spread fewest first */
  poolGuests: number;
  /** real memory (status.info.memory_mb); undefined until the host's facts were read */
  memoryMB?: number;
  /** processors (status.info.vcpus); undefined until the host's facts were read */
  cpus?: number;
  /** the memory of every ZGuest defined on it, from the store (current, unlike the facts' used figure) */
  committedMB: number;
}

const factNumber = (host: ZHost | undefined, key: string): number | undefined => {
  const v = host?.status?.info?.[key];
  return typeof v === 'number' && v > 0 ? v : undefined;
};

/** Pure: the size of each guest of the template, its class (the revision new guests take) applied. */
export function templateSize(pool: ZGuestPool, classValues: GuestClassValues | undefined): GuestSize {
  const spec = { ...pool.spec.template.spec, userid: '' };
  const resolved = resolveGuestSpec(spec, classValues);
  // an incomplete template is each guest's own error (ClassIncomplete): weigh what is known
  const { vcpus, memory } = 'spec' in resolved ? resolved.spec : { vcpus: spec.vcpus ?? classValues?.vcpus, memory: spec.memory ?? classValues?.memory };
  return { vcpus, memoryMB: memory === undefined ? undefined : memoryToMB(memory) };
}

/** A guest's memory: its own, else its recorded class's; else (a class not recorded yet) `otherwise`. */
export function guestMemoryMB(g: ZGuest, otherwiseMB: number): number {
  const memory = g.spec.memory ?? g.status?.class?.values.memory;
  return (memory === undefined ? undefined : memoryToMB(memory)) ?? otherwiseMB;
}

/**
 * Pure: the rooms of the named hosts (in that order). `guests` are every ZGuest in the store, so
 * memory committed by other pools and single guests counts too; `members` are the pool's own, whose
 * class may not be recorded yet: they weigh the template's `size` until it is.
 */
export function hostRooms(names: string[], zhosts: ZHost[], guests: ZGuest[], members: ZGuest[], size: GuestSize): HostRoom[] {
  const memberNames = new Set(members.map((g) => `${g.metadata.namespace}/${g.metadata.name}`));
  const weight = (g: ZGuest) => guestMemoryMB(g, memberNames.has(`${g.metadata.namespace}/${g.metadata.name}`) ? (size.memoryMB ?? 0) : 0);
  return names.map((name) => {
    const host = zhosts.find((h) => h.metadata.name === name);
    const on = (g: ZGuest) => hostOf(g) === name;
    return {
      name,
      poolGuests: members.filter(on).length,
      memoryMB: factNumber(host, 'memory_mb'),
      cpus: factNumber(host, 'vcpus'),
      committedMB: guests.filter(on).reduce((sum, g) => sum + weight(g), 0),
    };
  });
}

/**
 * Pure: can the host take one more guest of this size? Its virtual CPUs must not outnumber the host's
 * processors (more would only wait for each other), and the memory of the guests defined on it plus
 * this one must fit the host's real memory: no overcommitment, so every guest can be logged on at
 * once. A host whose facts are not read yet has no known limit.
 */
export function fits(room: HostRoom, size: GuestSize): boolean {
  const cpusFit = room.cpus === undefined || (size.vcpus ?? 0) <= room.cpus;
  const memoryFits = room.memoryMB === undefined || room.committedMB + (size.memoryMB ?? 0) <= room.memoryMB;
  return cpusFit && memoryFits;
}

/** Pure: the host the next guest goes to: of those it fits, the one with the fewest pool guests (the first listed on a tie). */
export function pickHost(rooms: HostRoom[], size: GuestSize): HostRoom | undefined {
  return rooms.filter((r) => fits(r, size)).reduce<HostRoom | undefined>((best, r) => (!best || r.poolGuests < best.poolGuests ? r : best), undefined);
}

/** Pure: the rooms once a guest of this size went to `name`. */
export function reserve(rooms: HostRoom[], name: string, size: GuestSize): HostRoom[] {
  return rooms.map((r) => (r.name === name ? { ...r, poolGuests: r.poolGuests + 1, committedMB: r.committedMB + (size.memoryMB ?? 0) } : r));
}

/** Why no host can take the guest, for the pool's condition. */
export function noRoomMessage(rooms: HostRoom[], size: GuestSize): string {
  if (rooms.length === 0) return 'no ZHost matches the pool\'s hostSelector';
  const want = `${size.vcpus ?? '?'} CPUs and ${size.memoryMB ?? '?'} MB`;
  const each = rooms.map((r) => `${r.name} (${r.cpus ?? '?'} CPUs, ${r.committedMB} of ${r.memoryMB ?? '?'} MB committed)`);
  return `no host can take another guest of ${want}: ${each.join(', ')}`;
}
