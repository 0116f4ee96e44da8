import { HypervisorError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { silentLogger } from '../../log.js';
import { parseDirectory, renderDirectory } from '../directory/directory.js';
import { cpuKeywords, diskAllocation, range, rewriteEntry, shareKeyword } from './directory-edits.js';
import { createHealthCounters } from '../smapi/health.js';
import type {
  CallOptions, DirectoryDisk, DirectoryRewrite, DiskPoolInfo, DiskRequest, GuestDefinition, GuestState, HostConnection, HostInfo, Hypervisor,
  PerformanceRecord, PowerState,
} from '../port.js';
import type { ImagePerformanceRecord } from '../smapi/functions.js';
import type { SmapiCaller } from '../smapi/types.js';
import { ALREADY, createSmapiCall } from './call.js';
import { cachedHostQueries, createSmapiHostQueries, parsePoolSpace, toHostInfo } from './host.js';
import { createLiveFacts } from './live-facts.js';
import { createSmapiFcpOps } from './fcp.js';
import { createSmapiRelocationOps } from './relocation.js';
import { createSmapiVswitchOps } from './vswitch.js';
import type { MgmtOps } from '../image-port.js';
import { normalizeShare } from '../../api/zguest.js';
import { cpuAddress } from '../directory/render.js';
import { recordingCaller, recordingMgmt, type DryRun, type PlannedCall } from './dry-run.js';


export interface SmapiHypervisorDeps {
  hostName: string;
  caller: SmapiCaller;
  log?: Logger;
  /** the host's management guest (image work, vmcp), when one is configured */
  mgmt?: MgmtOps;
  /** what the caller reaches, when the ZHost spec does not say it (Hypervisor.connection) */
  connection?: HostConnection;
  /** how long host facts and disk-pool figures are kept between writes (default live-facts.ts; 0: single-flight only) */
  factsPeriodMs?: number;
}

/**
 * The Hypervisor port over SMAPI. The same adapter drives a real host over TCP and the simulator
 * in-process, so the production call sequence is the one every test exercises.
 */
export function createSmapiHypervisor(deps: SmapiHypervisorDeps): Hypervisor {
  const log = (deps.log ?? silentLogger()).child({ component: 'hypervisor', host: deps.hostName });
  const health = createHealthCounters();
  // Real z/VM cannot tell a paused guest from a running one; we remember what we paused.
  const paused = new Set<string>();

  const facts = createLiveFacts(deps.factsPeriodMs);
  const smapi = facts.invalidatedBy(createSmapiCall({ caller: deps.caller, log, health }));
  const hostQueries = cachedHostQueries(createSmapiHostQueries(smapi, deps.hostName), facts);

  const uid = (userid: string) => userid.toUpperCase();

  async function queryDirectory(userid: string, opts?: CallOptions): Promise<string[] | undefined> {
    const res = await smapi('Image_Query_DM', uid(userid), {}, [ALREADY.noEntry], opts);
    if (res.rc !== 0) return undefined;
    return (res.output.image_record_array ?? []).map((l) => l.trimEnd());
  }

  async function queryPowerState(userid: string, opts?: CallOptions): Promise<PowerState> {
    const res = await smapi('Image_Status_Query', uid(userid), {}, [], opts);
    if (res.rs === 12) {
      paused.delete(uid(userid));
      return 'off';
    }
    return paused.has(uid(userid)) ? 'paused' : 'on';
  }

  async function queryPerformance(userids: string[], opts?: CallOptions): Promise<PerformanceRecord[]> {
    if (userids.length === 0) return [];
    const res = await smapi('Image_Performance_Query', 'MAINT', { image_names: userids.map(uid) }, [[4, 4]], opts);
    return (res.output.performance_records ?? []).map(toPerformanceRecord);
  }

  async function describeGuest(userid: string, opts?: CallOptions): Promise<GuestState | undefined> {
    const lines = await queryDirectory(userid, opts);
    if (!lines) return undefined;
    const directory = parseDirectory(lines);
    const power = await queryPowerState(userid, opts);
    if (power === 'off') return { userid: uid(userid), power, directory };
    const [perf] = await queryPerformance([userid], opts);
    const active = perf ? { cpus: perf.guestCpus, memoryMB: Math.round(perf.maxMemKb / 1024) } : undefined;
    return { userid: uid(userid), power, directory, active };
  }

  async function setDirectoryCpus(userid: string, count: number, opts?: CallOptions): Promise<void> {
    const lines = await queryDirectory(userid, opts);
    if (!lines) throw new HypervisorError('Image_Query_DM', 400, 4, `Guest '${uid(userid)}' is not in the directory`);
    const { update, remove } = cpuKeywords(parseDirectory(lines).cpus, count);
    if (remove.length > 0) await smapi('Image_Definition_Delete_DM', uid(userid), { definition_delete_directory_keyword_parameter_list: remove }, [], opts);
    if (update.length > 0) await smapi('Image_Definition_Update_DM', uid(userid), { definition_update_directory_keyword_parameter_list: update }, [], opts);
  }

  async function setDirectoryShare(userid: string, share: string, opts?: CallOptions): Promise<void> {
    await smapi('Image_Definition_Update_DM', uid(userid), { definition_update_directory_keyword_parameter_list: [shareKeyword(normalizeShare(share))] }, [], opts);
  }

  /** The CPUs the guest lacks, one call each; `active` comes from the caller's observation, not another query. */
  async function defineActiveCpus(userid: string, cpus: { active: number; count: number }, opts?: CallOptions): Promise<void> {
    for (const n of range(cpus.active, cpus.count)) {
      await smapi('Image_CPU_Define', uid(userid), { cpu_address: cpuAddress(n), cpu_type: 2 }, [], opts);
    }
  }

  /**
   * One locked rewrite (Lock, Query, Replace; Replace unlocks): the storage, the statement families, and
   * the CPU and SHARE statements the keyword updates would write, edited on the entry as read under the lock.
   */
  async function rewriteDirectory(userid: string, change: DirectoryRewrite, opts?: CallOptions): Promise<void> {
    await smapi('Image_Lock_DM', uid(userid), { device_address: '' }, [ALREADY.locked], opts);
    try {
      const lines = await queryDirectory(userid, opts);
      if (!lines) throw new HypervisorError('Image_Query_DM', 400, 4, `Guest '${uid(userid)}' is not in the directory`);
      await smapi('Image_Replace_DM', uid(userid), { image_record_array: rewriteEntry(lines, change) }, [], opts);
    } catch (err) {
      await smapi('Image_Unlock_DM', uid(userid), { device_address: '' }, [ALREADY.notLocked], opts);
      throw err;
    }
  }

  async function addDisk(userid: string, disk: DiskRequest, opts?: CallOptions): Promise<DirectoryDisk> {
    const alloc = diskAllocation(disk.pool, disk.size);
    await smapi('Image_Disk_Create_DM', uid(userid), {
      image_disk_number: disk.vdev,
      image_disk_device_type: alloc.deviceType,
      image_disk_allocation_type: 'AUTOG',
      allocation_area_name_or_volser: alloc.group,
      allocation_unit_size: 1,
      image_disk_size: alloc.units,
      image_disk_mode: 'MR',
      image_disk_formatting: 0,
      image_disk_label: '',
      read_password: '',
      write_password: '',
      multi_password: '',
    }, [], opts);
    return { vdev: disk.vdev.toUpperCase().padStart(4, '0'), deviceType: alloc.deviceType === '3390' ? '3390' : 'FB-512', start: 0, size: alloc.units, volser: '', mode: 'MR' };
  }

  return {
    hostName: deps.hostName,
    describeGuest,
    queryPowerState,
    queryPerformance,
    setDirectoryCpus,
    setDirectoryShare,
    defineActiveCpus,
    rewriteDirectory,
    addDisk,
    async listDirectory(opts) {
      const res = await smapi('Image_Name_Query_DM', 'FOOBAR', {}, [], opts);
      return (res.output.image_name_array ?? []).map((e) => e.image_name);
    },
    async queryActiveGuests(opts) {
      const res = await smapi('Image_Status_Query', '*', {}, [], opts);
      const names = (res.output.image_name_array ?? []).map((e) => e.image_name.toUpperCase());
      const active = new Set(names);
      for (const p of [...paused]) if (!active.has(p)) paused.delete(p);
      return new Map(names.map((n) => [n, paused.has(n) ? 'paused' : 'on']));
    },
    async createGuest(def: GuestDefinition, opts) {
      await smapi('Image_Create_DM', uid(def.userid), { prototype_name: '', initial_password: '', initial_account_number: '', image_record_array: renderDirectory(def) }, [], opts);
    },
    async deleteGuest(userid, opts) {
      await smapi('Image_Deactivate', uid(userid), { force_time: 'IMMED' }, [ALREADY.inactive, ALREADY.deactivating, [200, 4]], opts);
      paused.delete(uid(userid));
      await smapi('Image_Delete_DM', uid(userid), { data_security_erase: 0 }, [ALREADY.noEntry], opts);
      // the guest is gone: its console log on the management guest must not greet a later guest of that name
      await deps.mgmt?.forgetGuest?.(uid(userid), opts).catch((err: unknown) => log.warn({ err, userid: uid(userid) }, 'could not remove the console log of a deleted guest'));
    },
    async removeDisk(userid, vdev, opts) {
      await smapi('Image_Disk_Delete_DM', uid(userid), { image_disk_number: vdev, data_security_erase: 0 }, [ALREADY.noDisk], opts);
    },
    async start(userid, opts) {
      await smapi('Image_Activate', uid(userid), {}, [ALREADY.active], opts);
    },
    async stop(userid, opts) {
      await smapi('Image_Deactivate', uid(userid), { force_time: 'IMMED' }, [ALREADY.inactive, ALREADY.deactivating], opts);
      paused.delete(uid(userid));
    },
    async softStop(userid, opts) {
      await smapi('Image_Deactivate', uid(userid), { force_time: '' }, [ALREADY.inactive, ALREADY.deactivating], opts);
      paused.delete(uid(userid));
    },
    async pause(userid, opts) {
      await smapi('Image_Pause', uid(userid), { action: 'pause' }, [], opts);
      paused.add(uid(userid));
    },
    async unpause(userid, opts) {
      await smapi('Image_Pause', uid(userid), { action: 'unpause' }, [], opts);
      paused.delete(uid(userid));
    },
    async createNic(userid, nic, opts) {
      await smapi('Virtual_Network_Adapter_Create_Extended_DM', uid(userid), { image_device_number: nic.vdev, adapter_type: 'QDIO', ...(nic.macId ? { mac_id: nic.macId } : {}) }, [], opts);
    },
    async deleteNic(userid, vdev, opts) {
      await smapi('Virtual_Network_Adapter_Delete_DM', uid(userid), { image_device_number: vdev }, [ALREADY.noNic], opts);
    },
    async coupleNic(userid, vdev, vswitch, opts) {
      await smapi('Virtual_Network_Adapter_Connect_Vswitch_DM', uid(userid), { image_device_number: vdev, switch_name: vswitch }, [], opts);
    },
    async uncoupleNic(userid, vdev, opts) {
      await smapi('Virtual_Network_Adapter_Disconnect_DM', uid(userid), { image_device_number: vdev }, [ALREADY.notCoupled], opts);
    },
    /**
     * Console (docs/rest-interface.md §3.13): Image_Console_Get closes the guest's console spool file and
     * moves it into the reader of the caller's management guest, returning no data; 8/8 (not
     * logged on, nothing spooled) answers ''. The management guest then receives the guest's CON
     * files with vmur and answers its accumulated log (mgmt/console.ts). Without `mgmt` only the
     * in-process simulator's `console_text` extension can answer; over the wire that is ''.
     */
    async getConsoleOutput(userid, opts) {
      const res = await smapi('Image_Console_Get', uid(userid), {}, [[8, 8]], opts);
      if (res.rc !== 0) return '';
      if (deps.mgmt?.consoleOutput) return deps.mgmt.consoleOutput(uid(userid), opts);
      return res.output.console_text ?? '';
    },
    async describeHost(): Promise<HostInfo> {
      return toHostInfo(await hostQueries.describe());
    },
    describeDiskPool(pool): Promise<DiskPoolInfo> {
      // shared by concurrent readers, so without any one reader's abort signal (host.ts cachedHostQueries)
      const group = (pool.includes(':') ? pool.split(':')[1] : pool).toUpperCase();
      return facts.read(`pool:${pool}`, async () => {
        const free = await smapi('Image_Volume_Space_Query_DM', 'MAINT', { query_type: 2, entry_type: 3, entry_names: group });
        const used = await smapi('Image_Volume_Space_Query_DM', 'MAINT', { query_type: 3, entry_type: 3, entry_names: group });
        return parsePoolSpace(pool, free.output.record_array ?? [], used.output.record_array ?? []);
      });
    },
    vswitches: createSmapiVswitchOps(smapi),
    hostQueries,
    fcp: createSmapiFcpOps(smapi),
    relocation: createSmapiRelocationOps(smapi),
    health: () => health.snapshot(),
    dryRun: (): DryRun => {
      const calls: PlannedCall[] = [];
      const mgmt = deps.mgmt && recordingMgmt(deps.mgmt, calls);
      return { hv: createSmapiHypervisor({ ...deps, caller: recordingCaller(deps.caller, calls), mgmt }), calls };
    },
    ...(deps.connection ? { connection: deps.connection } : {}),
    mgmt: deps.mgmt,
    close: async () => {
      await deps.mgmt?.close();
      await deps.caller.close();
    },
  };
}

function toPerformanceRecord(r: ImagePerformanceRecord): PerformanceRecord {
  return {
    userid: r.guest_name.trim(),
    usedCpuTimeUs: r.used_cpu_time,
    elapsedTimeUs: r.elapsed_time,
    minMemKb: r.min_memory,
    maxMemKb: r.max_memory,
    sharedMemKb: r.shared_memory,
    usedMemKb: r.used_memory,
    guestCpus: r.guest_cpus,
    minCpuCount: r.min_cpu_count,
    maxCpuLimit: r.max_cpu_limit,
    samplesCpuInUse: r.samples_cpu_in_use,
    samplesCpuDelay: r.samples_cpu_delay,
  };
}
