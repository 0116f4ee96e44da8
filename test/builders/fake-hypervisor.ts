import { HypervisorError, NotSupportedError } from '../../src/errors.js';
import { parseDirectory, renderDirectory, STATEMENT_FAMILIES, statementsOf, type StatementFamily } from '../../src/hypervisor/index.js';
import { withStatements } from '../../src/hypervisor/directory/families.js';
import type {
  CallOptions,
  DirectoryDisk,
  DirectoryNic,
  DirectoryRewrite,
  DiskPoolInfo,
  DiskRequest,
  GuestDefinition,
  GuestState,
  HostInfo,
  Hypervisor,
  HypervisorHealth,
  PerformanceRecord,
  PowerState,
} from '../../src/hypervisor/port.js';

interface Entry {
  def: GuestDefinition;
  cpus: number;
  memory: string;
  disks: DirectoryDisk[];
  nics: DirectoryNic[];
  power: PowerState;
  active?: { cpus: number; memoryMB: number };
  share?: string;
  /** statement families a rewrite replaced (they show in place of what the definition renders) */
  statements?: DirectoryRewrite['statements'];
}

function mb(memory: string): number {
  const n = parseInt(memory, 10);
  return /g$/i.test(memory) ? n * 1024 : n;
}

/**
 * A small in-memory z/VM host for controller tests: directory entries, minidisks and power state,
 * with z/VM's refusals (duplicate userid or vdev, pause of a logged-off guest, CPUs above MACHINE ESA)
 * as terminal HypervisorErrors. Wrap it with withCrashes() to crash at the Nth mutating call.
 */
export class FakeHypervisor implements Hypervisor {
  readonly hostName: string;
  readonly entries = new Map<string, Entry>();
  /** every mutating call that reached the host, e.g. 'addDisk LINUX01 0101' */
  readonly calls: string[] = [];

  constructor(hostName = 'default') {
    this.hostName = hostName;
  }

  /** Applies a mutation and logs it once the host accepted it. */
  private async mutate(label: string, apply: () => void): Promise<void> {
    apply();
    this.calls.push(label);
  }

  private must(userid: string, fn: string): Entry {
    const entry = this.entries.get(userid.toUpperCase());
    if (!entry) throw new HypervisorError(fn, 400, 4, `image definition ${userid} not found`);
    return entry;
  }

  async describeGuest(userid: string): Promise<GuestState | undefined> {
    const e = this.entries.get(userid.toUpperCase());
    if (!e) return undefined;
    const id = e.def.userid.toUpperCase();
    let lines = [`USER ${id} LBYONLY ${e.memory} ${e.def.maxMemory} G`, `MACHINE ESA ${e.def.maxCpus}`];
    for (const family of STATEMENT_FAMILIES) if (family !== 'maxCpus' && family !== 'comments') lines.push(...statementsOf(renderDirectory(e.def), family));
    for (const d of e.disks) lines.push(`MDISK ${d.vdev} ${d.deviceType} ${d.start} ${d.size} ${d.volser} ${d.mode}`);
    for (const n of e.nics) lines.push(`NICDEF ${n.vdev} TYPE QDIO${n.vswitch ? ` LAN SYSTEM ${n.vswitch}` : ''}${n.macId ? ` MACID ${n.macId}` : ''}`);
    for (const c of e.def.comments ?? []) lines.push(`* ${c.toUpperCase()}`);
    for (const [family, statements] of Object.entries(e.statements ?? {})) lines = withStatements(lines, family as StatementFamily, statements ?? []);
    const maxCpus = parseDirectory(lines).maxCpus;
    const state: GuestState = {
      userid: id,
      power: e.power,
      directory: { userid: id, lines, memory: e.memory, maxMemory: e.def.maxMemory, maxCpus, cpus: e.cpus, disks: e.disks.map((d) => ({ ...d })), nics: e.nics.map((n) => ({ ...n })), dedicates: [], ...(e.share ? { share: e.share } : {}) },
    };
    if (e.active) state.active = { ...e.active };
    return state;
  }

  async listDirectory(): Promise<string[]> {
    return [...this.entries.keys()];
  }

  async queryActiveGuests(): Promise<Map<string, PowerState>> {
    return new Map([...this.entries].filter(([, e]) => e.power !== 'off').map(([id, e]) => [id, e.power]));
  }

  async queryPowerState(userid: string): Promise<PowerState> {
    return this.must(userid, 'Image_Status_Query').power;
  }

  createGuest(def: GuestDefinition, _opts?: CallOptions): Promise<void> {
    const id = def.userid.toUpperCase();
    return this.mutate(`createGuest ${id}`, () => {
      if (this.entries.has(id)) throw new HypervisorError('Image_Create_DM', 400, 8, `image definition ${id} already exists`);
      this.entries.set(id, { def: { ...def }, cpus: def.vcpus, memory: def.memory, disks: [], nics: [], power: 'off' });
    });
  }

  deleteGuest(userid: string): Promise<void> {
    return this.mutate(`deleteGuest ${userid}`, () => void this.entries.delete(userid.toUpperCase()));
  }

  async addDisk(userid: string, disk: DiskRequest): Promise<DirectoryDisk> {
    const created: DirectoryDisk = { vdev: disk.vdev, deviceType: '3390', start: 1, size: 100, volser: 'VOL001', mode: 'MR' };
    await this.mutate(`addDisk ${userid} ${disk.vdev}`, () => {
      const e = this.must(userid, 'Image_Disk_Create_DM');
      if (e.disks.some((d) => d.vdev === disk.vdev)) throw new HypervisorError('Image_Disk_Create_DM', 400, 8, `disk ${disk.vdev} already defined`);
      e.disks.push(created);
    });
    return created;
  }

  removeDisk(userid: string, vdev: string): Promise<void> {
    return this.mutate(`removeDisk ${userid} ${vdev}`, () => {
      const e = this.must(userid, 'Image_Disk_Delete_DM');
      e.disks = e.disks.filter((d) => d.vdev !== vdev);
    });
  }

  start(userid: string): Promise<void> {
    return this.mutate(`start ${userid}`, () => {
      const e = this.must(userid, 'Image_Activate');
      if (e.power !== 'off') return;
      e.power = 'on';
      e.active = { cpus: e.cpus, memoryMB: mb(e.memory) };
    });
  }

  stop(userid: string): Promise<void> {
    return this.mutate(`stop ${userid}`, () => {
      const e = this.must(userid, 'Image_Deactivate');
      e.power = 'off';
      e.active = undefined;
    });
  }

  softStop(userid: string): Promise<void> {
    return this.stop(userid);
  }

  pause(userid: string): Promise<void> {
    return this.mutate(`pause ${userid}`, () => {
      const e = this.must(userid, 'Image_Pause');
      if (e.power === 'off') throw new HypervisorError('Image_Pause', 200, 12, `${userid} is not logged on`);
      e.power = 'paused';
    });
  }

  unpause(userid: string): Promise<void> {
    return this.mutate(`unpause ${userid}`, () => {
      const e = this.must(userid, 'Image_Pause');
      if (e.power === 'off') throw new HypervisorError('Image_Pause', 200, 12, `${userid} is not logged on`);
      e.power = 'on';
    });
  }

  setDirectoryCpus(userid: string, count: number): Promise<void> {
    return this.mutate(`setDirectoryCpus ${userid} ${count}`, () => {
      const e = this.must(userid, 'Image_Definition_Update_DM');
      if (count > e.def.maxCpus) throw new HypervisorError('Image_Definition_Update_DM', 400, 4, `${count} CPUs exceed MACHINE ESA ${e.def.maxCpus}`);
      e.cpus = count;
    });
  }

  setDirectoryShare(userid: string, share: string): Promise<void> {
    return this.mutate(`setDirectoryShare ${userid} ${share}`, () => {
      this.must(userid, 'Image_Definition_Update_DM').share = share;
    });
  }

  defineActiveCpus(userid: string, { count }: { active: number; count: number }): Promise<void> {
    return this.mutate(`defineActiveCpus ${userid} ${count}`, () => {
      const e = this.must(userid, 'CP DEFINE CPU');
      if (!e.active) throw new HypervisorError('CP DEFINE CPU', 200, 12, `${userid} is not logged on`);
      e.active.cpus = Math.max(e.active.cpus, count);
    });
  }

  /** The rewrite's memory, CPUs, SHARE and statement families show in the label. */
  rewriteDirectory(userid: string, change: DirectoryRewrite): Promise<void> {
    const { memory, maxMemory, cpus, share, statements } = change;
    const families = Object.keys(statements ?? {});
    const label = `rewriteDirectory ${userid}${memory ? ` ${memory}` : ''}${maxMemory ? ` max=${maxMemory}` : ''}${cpus !== undefined ? ` cpus=${cpus}` : ''}${share ? ` share=${share}` : ''}${families.length ? ` ${families.join(',')}` : ''}`;
    return this.mutate(label, () => {
      const e = this.must(userid, 'Image_Replace_DM');
      const machine = statements?.maxCpus?.[0] ? Number(statements.maxCpus[0].split(' ')[2]) : undefined;
      if (machine !== undefined) e.def = { ...e.def, maxCpus: machine };
      if (cpus !== undefined && cpus > e.def.maxCpus) throw new HypervisorError('Image_Replace_DM', 400, 4, `${cpus} CPUs exceed MACHINE ESA ${e.def.maxCpus}`);
      if (memory) e.memory = memory;
      if (maxMemory) e.def = { ...e.def, maxMemory };
      if (cpus !== undefined) e.cpus = cpus;
      if (share) e.share = share;
      const { maxCpus: _machine, ...others } = statements ?? {};
      if (Object.keys(others).length > 0) e.statements = { ...e.statements, ...others };
    });
  }

  /** NICDEF rules of the simulator: 3 devices per NIC (404/4 in use), 404/8 no such NIC, 212/32 not coupled. */
  createNic(userid: string, nic: { vdev: string; macId?: string }): Promise<void> {
    return this.mutate(`createNic ${userid} ${nic.vdev}`, () => {
      const e = this.must(userid, 'Virtual_Network_Adapter_Create_Extended_DM');
      const base = parseInt(nic.vdev, 16);
      if (e.nics.some((n) => Math.abs(parseInt(n.vdev, 16) - base) < 3)) throw new HypervisorError('Virtual_Network_Adapter_Create_Extended_DM', 404, 4, `device ${nic.vdev} in use`);
      e.nics.push({ vdev: nic.vdev, ...(nic.macId ? { macId: nic.macId } : {}) });
    });
  }
  deleteNic(userid: string, vdev: string): Promise<void> {
    return this.mutate(`deleteNic ${userid} ${vdev}`, () => {
      const e = this.must(userid, 'Virtual_Network_Adapter_Delete_DM');
      e.nics = e.nics.filter((n) => n.vdev !== vdev);
    });
  }
  coupleNic(userid: string, vdev: string, vswitch: string): Promise<void> {
    return this.mutate(`coupleNic ${userid} ${vdev} ${vswitch}`, () => {
      const nic = this.nicOf(userid, vdev, 'Virtual_Network_Adapter_Connect_Vswitch_DM');
      nic.vswitch = vswitch.toUpperCase();
    });
  }
  uncoupleNic(userid: string, vdev: string): Promise<void> {
    return this.mutate(`uncoupleNic ${userid} ${vdev}`, () => {
      const nic = this.nicOf(userid, vdev, 'Virtual_Network_Adapter_Disconnect_DM');
      delete nic.vswitch;
    });
  }
  private nicOf(userid: string, vdev: string, fn: string): DirectoryNic {
    const nic = this.must(userid, fn).nics.find((n) => n.vdev === vdev);
    if (!nic) throw new HypervisorError(fn, 404, 8, `NIC ${vdev} not defined`);
    return nic;
  }
  async queryPerformance(): Promise<PerformanceRecord[]> {
    return [];
  }
  async getConsoleOutput(): Promise<string> {
    return '';
  }
  async describeHost(): Promise<HostInfo> {
    throw new NotSupportedError('fake: host info');
  }
  async describeDiskPool(): Promise<DiskPoolInfo> {
    throw new NotSupportedError('fake: disk pools');
  }
  health(): HypervisorHealth {
    return { totalSuccess: 0, totalFail: 0, lastSuccess: '', lastFail: '', continuousFail: 0, healthy: true };
  }
  async close(): Promise<void> {}
}
