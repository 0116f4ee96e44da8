import { createSimHost } from '../../../../src/hypervisor/sim/index.js';
import type { SimConfig, SimHost } from '../../../../src/hypervisor/sim/index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SmapiParams, SmapiResponse } from '../../../../src/hypervisor/smapi/types.js';

/** A small host: POOL1 = two ECKD volumes of 3000 cylinders, POOL2 = one FBA volume. */
export function smallHost(overrides: Partial<SimConfig> = {}): SimHost {
  return createSimHost({
    pools: [
      { name: 'POOL1', type: 'ECKD', volumes: [{ volser: 'VOL001', cylinders: 3000 }, { volser: 'VOL002', cylinders: 3000 }] },
      { name: 'POOL2', type: 'FBA', volumes: [{ volser: 'FBA001', blocks: 4_194_304 }] },
    ],
    profiles: ['OSDFLT'],
    ...overrides,
  });
}

export function call(host: SimHost, fn: string, target: string, params: SmapiParams = {}): Promise<SmapiResponse> {
  return host.handle({ fn, target, params });
}

export function rcrs(r: SmapiResponse): [number, number] {
  return [r.rc, r.rs];
}

export function entry(userid: string, ...extra: string[]): string[] {
  return [`USER ${userid} LBYONLY 2G 64G G`, 'INCLUDE OSDFLT', 'MACHINE ESA 4', 'COMMAND DEFINE CPU 00 TYPE IFL', ...extra];
}

export async function createGuest(host: SimHost, userid: string, ...extra: string[]): Promise<void> {
  const r = await call(host, 'Image_Create_DM', userid, { image_record_array: entry(userid, ...extra) });
  if (r.rc !== 0) throw new Error(`create ${userid} failed ${r.rc}/${r.rs}`);
}

export function addDisk(host: SimHost, userid: string, vdev: string, size: number, pool = 'POOL1', type = '3390'): Promise<SmapiResponse> {
  return call(host, 'Image_Disk_Create_DM', userid, {
    image_disk_number: vdev,
    image_disk_device_type: type,
    image_disk_allocation_type: 'AUTOG',
    allocation_area_name_or_volser: pool,
    allocation_unit_size: 1,
    image_disk_size: size,
    image_disk_mode: 'MR',
    image_disk_formatting: 1,
  });
}

export async function records(host: SimHost, userid: string): Promise<string[]> {
  const r = await call(host, 'Image_Query_DM', userid);
  return (r.output.image_record_array as string[]).map((s) => s.trimEnd());
}

/** One call sequence for the persistence tests (JSON and SQLite): vswitch, directory, disks, NIC, running state, locks. */
export async function persistenceScenario(host: SimHost): Promise<void> {
  await call(host, 'Virtual_Network_Vswitch_Create_Extended', 'MAINT', { switch_name: 'VSW1', real_device_address: '1000' });
  await call(host, 'Virtual_Network_Vswitch_Set_Extended', 'MAINT', { switch_name: 'VSW1', grant_userid: 'P1' });
  await createGuest(host, 'P1', 'NICDEF 1000 TYPE QDIO LAN SYSTEM VSW1');
  await createGuest(host, 'P2');
  await addDisk(host, 'P1', '100', 1000);
  await addDisk(host, 'P2', '100', 1500);
  await call(host, 'Image_Activate', 'P1');
  await call(host, 'Image_CPU_Define', 'P1', { cpu_address: '01', cpu_type: 2 });
  await call(host, 'Image_Pause', 'P1', { action: 'pause' });
  await call(host, 'Image_Lock_DM', 'P2', { device_address: '' });
}

/** A fresh temporary directory per test, removed after it; read `.path` inside the test. */
export function tempDirPerTest(prefix: string): { path: string } {
  const dir = { path: '' };
  beforeEach(() => { dir.path = mkdtempSync(join(tmpdir(), prefix)); });
  afterEach(() => { rmSync(dir.path, { recursive: true, force: true }); });
  return dir;
}
