/**
 * The field contract (DESIGN §6 tier 7): every ZGuest spec field the lifecycle table declares
 * (src/api/zguest-fields.ts) is edited on a live, Ready guest and must end in its declared outcome.
 * The table drives the run: a declared field without an edit here fails the suite, so a new field
 * cannot go untested. Each runner (standalone process, chart pods on a real apiserver) supplies the
 * world: how to patch, read the guest and read its user directory from the host.
 */
import { lifecycleOf, ZGUEST_FIELDS, type ZGuest, type ZGuestSpec } from '../../src/api/index.js';

export interface ContractWorld {
  /** merge-patches the guest's spec; resolves with the refusal's text when the write is refused */
  patch(spec: Record<string, unknown>): Promise<{ refused?: string }>;
  get(): Promise<ZGuest>;
  /** the user directory as the host holds it, one statement per line */
  directory(): Promise<string[]>;
  /** polls until the probe holds, else throws naming what */
  until(what: string, probe: () => Promise<boolean>): Promise<void>;
}

/** How a field is edited, and how the host (or, for a field recorded in status, the status) shows the new value. */
export interface FieldEdit {
  to: Partial<Record<keyof ZGuestSpec, unknown>>;
  shows?: (lines: string[], guest: ZGuest) => boolean;
  /** after the check: the spec patch that puts things back (a power state, a refused edit) */
  restore?: Partial<Record<keyof ZGuestSpec, unknown>>;
}

export const CONTRACT_USERID = 'FCON01';
export const CONTRACT_CLASS = 'fcon-class';

/** The guest every edit starts from: every field with a value the edits can change. */
export const BASE_SPEC = {
  userid: CONTRACT_USERID,
  vcpus: 2,
  maxCpus: 8,
  memory: '1G',
  maxMemory: '2G',
  account: 'ACCT1',
  comments: ['first'],
  disks: [{ size: '1G', boot: true }, { size: '512M', format: 'ext4' }],
  nics: [{ vdev: '1000', mac: '02:00:00:aa:bb:cc', vswitch: 'VSWFC' }],
  powerState: 'Running',
};

const has = (line: string) => (lines: string[]) => lines.some((l) => l.trim().replace(/\s+/g, ' ').toUpperCase() === line);
const cpus = (lines: string[]) => lines.filter((l) => /^COMMAND DEFINE CPU /i.test(l.trim())).length;
const disksNow = [{ size: '1G', boot: true }, { size: '512M', format: 'ext4' }];

/** One edit per declared field (item fields of a list by their path). */
export const EDITS: Record<string, FieldEdit> = {
  userid: { to: { userid: 'FCON02' } },
  host: { to: { host: 'elsewhere' } },
  class: { to: { class: CONTRACT_CLASS }, shows: (_l, g) => g.status?.class?.name === CONTRACT_CLASS },
  classRevision: { to: { classRevision: 1 }, shows: (_l, g) => g.status?.class?.revision === 1 },
  vcpus: { to: { vcpus: 3 }, shows: (l, g) => cpus(l) === 3 && g.status?.vcpus === 3 },
  maxCpus: { to: { maxCpus: 12 }, shows: has('MACHINE ESA 12') },
  memory: { to: { memory: '2G' }, shows: (l) => /^USER FCON01 \S+ 2G /i.test(l[0] ?? '') },
  maxMemory: { to: { maxMemory: '4G' }, shows: (l) => /^USER FCON01 \S+ \S+ 4G /i.test(l[0] ?? '') },
  profile: { to: { profile: 'LNXDFLT' }, shows: has('INCLUDE LNXDFLT') },
  account: { to: { account: 'ACCT2' }, shows: has('ACCOUNT ACCT2') },
  comments: { to: { comments: ['second'] }, shows: (l) => has('* SECOND')(l) && !has('* FIRST')(l) },
  ipl: { to: { ipl: { device: '0100', loadparm: 'L1' } }, shows: has('IPL 0100 LOADPARM L1') },
  loaddev: { to: { loaddev: { portname: '5005076802100C1A', lun: '0' } }, shows: has('LOADDEV PORTNAME 5005076802100C1A') },
  dedicate: { to: { dedicate: ['01A0'] }, shows: has('DEDICATE 01A0 01A0') },
  cpuPool: { to: { cpuPool: 'CPOOL1' }, shows: has('COMMAND SCHEDULE * WITHIN POOL CPOOL1') },
  share: { to: { share: 'RELATIVE 300' }, shows: has('SHARE RELATIVE 300') },
  relocationDomain: { to: { relocationDomain: 'DOM1' }, shows: has('COMMAND SET VMRELOCATE * DOMAIN DOM1') },
  pciFunctions: { to: { pciFunctions: ['1f:2a00'] }, shows: has('COMMAND ATTACH PCIF 1F * AS 2A00') },
  disks: { to: { disks: [...disksNow, { size: '256M', format: 'ext4' }] }, shows: (l) => l.some((x) => /^MDISK 0102 /i.test(x.trim())) },
  'disks[].vdev': { to: { disks: [...disksNow, { size: '256M', format: 'ext4' }, { size: '256M', format: 'ext4', vdev: '0110' }] }, shows: (l) => l.some((x) => /^MDISK 0110 /i.test(x.trim())) },
  'disks[].size': { to: { disks: [{ size: '2G', boot: true }, disksNow[1]] }, restore: { disks: disksNow } },
  'disks[].format': { to: { disks: [disksNow[0], { size: '512M', format: 'xfs' }] }, restore: { disks: disksNow } },
  'disks[].pool': { to: { disks: [disksNow[0], { size: '512M', format: 'ext4', pool: 'FBA:POOL2' }] }, restore: { disks: disksNow } },
  'disks[].boot': { to: { disks: [{ size: '1G' }, disksNow[1]] }, restore: { disks: disksNow } },
  diskConfig: { to: { diskConfig: [{ vdev: '0101', format: 'ext4', mntdir: '/data' }] }, shows: (_l, g) => g.status?.configuredDisks?.[0]?.mntdir === '/data' },
  nics: { to: { nics: [BASE_SPEC.nics[0], { vdev: '1100' }] }, shows: (l) => l.some((x) => /^NICDEF 1100 /i.test(x.trim())) },
  'nics[].vdev': { to: { nics: [BASE_SPEC.nics[0], { vdev: '1100' }, { vdev: '1200' }] }, shows: (l) => l.some((x) => /^NICDEF 1200 /i.test(x.trim())) },
  'nics[].mac': { to: { nics: [{ ...BASE_SPEC.nics[0], mac: '02:00:00:dd:ee:ff' }, { vdev: '1100' }, { vdev: '1200' }] }, shows: (l) => l.some((x) => /^NICDEF 1000 .*MACID DDEEFF/i.test(x.trim())) },
  'nics[].vswitch': { to: { nics: [{ vdev: '1000', mac: '02:00:00:dd:ee:ff', vswitch: 'VSWFD' }, { vdev: '1100' }, { vdev: '1200' }] }, shows: (l) => l.some((x) => /^NICDEF 1000 .*LAN SYSTEM VSWFD/i.test(x.trim())) },
  // the live item fields change nothing else of the NIC (the others wait for a restart)
  'nics[].vlan': { to: { nics: [{ ...BASE_SPEC.nics[0], vlan: 5 }] }, shows: (_l, g) => g.status?.nics?.find((n) => n.vdev === '1000')?.vlan === 5 },
  'nics[].nicId': { to: { nics: [{ ...BASE_SPEC.nics[0], vlan: 5, nicId: 'n1' }] }, shows: (_l, g) => g.status?.nics?.find((n) => n.vdev === '1000')?.nicId === 'n1' },
  network: { to: { network: { osVersion: 'rhel9.2', interfaces: [{ ipAddr: '192.0.2.10', cidr: '192.0.2.0/24' }] } }, shows: (_l, g) => g.status?.network?.interfaces[0]?.ipAddr === '192.0.2.10' },
  powerState: { to: { powerState: 'Paused' }, shows: (_l, g) => g.status?.powerState === 'paused', restore: { powerState: 'Running' } },
  // a policy shows in what the next change does: with Deferred, more CPUs go to the directory only
  resizePolicy: { to: { resizePolicy: 'Deferred', vcpus: 4 }, shows: (l, g) => cpus(l) === 4 && g.status?.vcpus === 3 },
  // read when the resource is deleted: the runner deletes the guest last and finds it still on the host
  deletionPolicy: { to: { deletionPolicy: 'Orphan' }, shows: (_l, g) => g.spec.deletionPolicy === 'Orphan' },
  adopt: { to: { adopt: true }, shows: (_l, g) => g.spec.adopt === true },
  image: { to: {} },
  imageDeploy: { to: {} },
};

/** Fields whose outcome this suite does not reach yet, with the reason (reported, never counted as passing). */
export const NOT_REACHED: Record<string, string> = {
  image: 'needs a ZImage in the repository and a stopped guest (DeployRequiresStop); covered by the image deploy tests, not here',
  imageDeploy: 'read by the deploy of spec.image; see image',
};

/** The fields of the table, with their lifecycle, in table order: what the suite must cover. */
export function contractFields(): { path: string; lifecycle: 'live' | 'atRestart' | 'fixed' }[] {
  return Object.keys(ZGUEST_FIELDS).map((path) => ({ path, lifecycle: lifecycleOf(ZGUEST_FIELDS, path)!.lifecycle }));
}

/** The name RestartRequired gives a field: an item field shows under its list. */
export function restartName(path: string): string {
  return path.split('[]')[0].split('.')[0];
}

function ready(g: ZGuest): boolean {
  return g.status?.observedGeneration === g.metadata.generation && g.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

function condition(g: ZGuest, type: string) {
  return g.status?.conditions?.find((c) => c.type === type);
}

/** A fixed field: refused at admission, or (a list item's field) refused by the reconcile naming it; then put back. */
export async function expectRefused(w: ContractWorld, path: string, edit: FieldEdit): Promise<void> {
  const res = await w.patch(edit.to);
  if (res.refused !== undefined) {
    if (!res.refused.includes(`${path} is immutable`)) throw new Error(`${path}: refused without naming the field: ${res.refused}`);
    return;
  }
  if (!path.includes('[]')) throw new Error(`${path}: a fixed field was accepted`);
  const index = /^(\w+)\[\]\.(\w+)$/.exec(path)!;
  await w.until(`${path} refused by the reconcile`, async () => {
    const g = await w.get();
    const synced = condition(g, 'Synced');
    return g.status?.observedGeneration === g.metadata.generation && synced?.status === 'False' && new RegExp(`${index[1]}\\[\\d+\\]\\.${index[2]} is immutable`).test(synced.message);
  });
  if (edit.restore) await w.patch(edit.restore);
  await w.until(`${path}: Ready again once put back`, async () => ready(await w.get()));
}

/** A live field: the host (or status) shows the new value, and no restart is asked for it. */
export async function expectLive(w: ContractWorld, path: string, edit: FieldEdit): Promise<void> {
  const res = await w.patch(edit.to);
  if (res.refused !== undefined) throw new Error(`${path}: a live field was refused: ${res.refused}`);
  await w.until(`${path} shown on the host`, async () => {
    const g = await w.get();
    return g.status?.observedGeneration === g.metadata.generation && edit.shows!(await w.directory(), g);
  });
  const g = await w.get();
  if ((g.status?.pendingRestart ?? []).includes(restartName(path))) throw new Error(`${path}: a live field waits for a restart`);
  if (edit.restore) {
    await w.patch(edit.restore);
    await w.until(`${path}: Ready again once put back`, async () => ready(await w.get()));
  }
}

/** At-restart fields, edited together: the directory shows each at once and RestartRequired names each. */
export async function expectPendingRestart(w: ContractWorld, paths: string[]): Promise<void> {
  const patch = Object.assign({}, ...paths.map((p) => EDITS[p].to)) as Record<string, unknown>;
  const res = await w.patch(patch);
  if (res.refused !== undefined) throw new Error(`at-restart fields refused: ${res.refused}`);
  let missing = paths;
  try {
    await w.until('the at-restart fields in the directory, RestartRequired naming them', async () => {
      const g = await w.get();
      if (g.status?.observedGeneration !== g.metadata.generation) return false;
      const lines = await w.directory();
      const restart = condition(g, 'RestartRequired');
      missing = paths.filter((p) => !(EDITS[p].shows!(lines, g) && restart?.status === 'True' && restart.message.includes(restartName(p))));
      return missing.length === 0;
    });
  } catch (err) {
    throw new Error(`${(err as Error).message}; not shown or not named: ${missing.join(', ')}`, { cause: err });
  }
}

/** After a stop and a start the host still shows every value and the condition has cleared by itself. */
export async function expectClearedAfterRestart(w: ContractWorld, paths: string[]): Promise<void> {
  await w.patch({ powerState: 'Stopped' });
  await w.until('stopped', async () => (await w.get()).status?.powerState === 'off');
  await w.patch({ powerState: 'Running' });
  await w.until('running again with RestartRequired cleared', async () => {
    const g = await w.get();
    return ready(g) && condition(g, 'RestartRequired')?.status === 'False' && g.status?.pendingRestart === undefined;
  });
  const g = await w.get();
  const lines = await w.directory();
  const lost = paths.filter((p) => !EDITS[p].shows!(lines, g));
  if (lost.length > 0) throw new Error(`after the restart the host no longer shows ${lost.join(', ')}`);
}

export { ready as isReady };
