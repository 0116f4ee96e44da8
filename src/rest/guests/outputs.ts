import type { DirectoryDisk, GuestState, PerformanceRecord, PowerState } from '../../hypervisor/index.js';
import { parseSizeMB } from './sizes.js';

/** feilong reports only on/off: a paused guest is logged on (CP QUERY USER answers it). */
export function feilongPower(p: PowerState): 'on' | 'off' {
  return p === 'off' ? 'off' : 'on';
}

/**
 * GET /guests/{userid}/info (docs/rest-interface.md §5.1). Without an in-guest agent online_cpu_num is the
 * active CPU count and os_distro/kernel_info are empty (the reference's IUCV-failure values).
 */
export function computeGuestInfo(state: GuestState, perf: PerformanceRecord | undefined) {
  const on = state.power !== 'off';
  const maxMemKb = (parseSizeMB(state.directory.maxMemory) ?? 0) * 1024;
  return {
    power_state: feilongPower(state.power),
    max_mem_kb: on && perf ? perf.maxMemKb : maxMemKb,
    mem_kb: on && perf ? perf.usedMemKb : 0,
    num_cpu: on && perf ? perf.guestCpus : state.directory.cpus,
    cpu_time_us: on && perf ? perf.usedCpuTimeUs : 0,
    online_cpu_num: on ? (state.active?.cpus ?? 0) : 0,
    os_distro: '',
    kernel_info: '',
  };
}

/**
 * /info of a logged-on guest from its performance record alone (what describeGuest would add is
 * the same record's CPU count), so the live read costs one SMAPI call instead of four.
 */
export function computeRunningGuestInfo(perf: PerformanceRecord) {
  return {
    power_state: 'on' as const,
    max_mem_kb: perf.maxMemKb,
    mem_kb: perf.usedMemKb,
    num_cpu: perf.guestCpus,
    cpu_time_us: perf.usedCpuTimeUs,
    online_cpu_num: perf.guestCpus,
    os_distro: '',
    kernel_info: '',
  };
}

/** GET /guests/stats entry (§5.3). */
export function computeStats(p: PerformanceRecord) {
  return {
    guest_cpus: p.guestCpus,
    used_cpu_time_us: p.usedCpuTimeUs,
    elapsed_cpu_time_us: p.elapsedTimeUs,
    min_cpu_count: p.minCpuCount,
    max_cpu_limit: p.maxCpuLimit,
    samples_cpu_in_use: p.samplesCpuInUse,
    samples_cpu_delay: p.samplesCpuDelay,
    used_mem_kb: p.usedMemKb,
    max_mem_kb: p.maxMemKb,
    min_mem_kb: p.minMemKb,
    shared_mem_kb: p.sharedMemKb,
  };
}

/** /user_direct masks the password of the USER/IDENTITY line, rebuilt with single spaces (§1.3 #28). */
export function maskDirectory(lines: string[]): string[] {
  let masked = false;
  return lines.map((line) => {
    const words = line.trim().split(/\s+/);
    if (masked || !/^(USER|IDENTITY)$/i.test(words[0] ?? '') || words.length < 3) return line;
    masked = true;
    words[2] = '******';
    return `${words.join(' ')} `;
  });
}

/** GET /guests/{userid}/disks entry (§5.2) from the directory's MDISK statements. */
export function computeMinidisk(d: DirectoryDisk) {
  const fba = d.deviceType.toUpperCase().startsWith('FB');
  return {
    vdev: d.vdev,
    rdev: '',
    access_type: /^R(R|S|V)?$/i.test(d.mode) ? 'R/O' : 'R/W',
    device_type: fba ? '9336' : d.deviceType,
    device_size: d.size,
    device_units: fba ? 'Blocks' : 'Cylinders',
    volume_label: d.volser,
  };
}

/** GET /guests/{userid}/adapters entry (§5.2) from the directory's NICDEF statements. */
export function computeAdapter(nic: { vdev: string; vswitch?: string; macId?: string }) {
  const out: Record<string, string> = { adapter_address: nic.vdev, adapter_status: nic.vswitch ? '02' : '00' };
  if (nic.vswitch) {
    out.lan_owner = 'SYSTEM';
    out.lan_name = nic.vswitch;
  }
  if (nic.macId) out.mac_address = nic.macId;
  return out;
}
