import { createInProcessCaller } from '../../../src/hypervisor/smapi/in-process-caller.js';
import { createSmapiHypervisor } from '../../../src/hypervisor/zvm/hypervisor.js';
import { countProcessors, parseHostSummary, parseRegion } from '../../../src/hypervisor/zvm/host.js';
import { decodeResponse, encodeResponse } from '../../../src/hypervisor/smapi/codec.js';
import { addDisk, createGuest, smallHost } from './sim/helpers.js';

/** The items of the captured z/VM 7.1 replies (smapi-vectors System_Information_Query/1, System_Performance_Information_Query/1). */
const INFORMATION = [
  'CMS_LEVEL=LEVEL=29 SERVICE_LEVEL=0000 LANGUAGE=AMENG',
  'CPUID=ID=FF01917729640000',
  'CP_LEVEL=VERSION=7.1.0 SERVICE_LEVEL=1801 GENERATION_TIME=02:44:15 GENERATION_DATE=2019-02-22 GENERATION_TIME_ZONE=EDT IPL_TIME=13:39:31 IPL_DATE=2019-04-28 IPL_TIME_ZONE=EDT LANGUAGE=AMENG',
  'STORAGE=ONLINE=4G CONFIGURED=4G INCREMENT=1M STANDBY=0 RESERVED=0',
];
const PERFORMANCE = ['CPU_COUNT=0004', 'MEMORY_IN_USE=476504', 'MEMORY_TOTAL=1048576', 'MY_LPAR_NAME=LP1'];
const PROCESSORS = ['0000 MASTER-PROCESSOR IFL 0000', '0001 ALTERNATE IFL 0001', '0002 PARKED IFL 0002', '0003 STOPPED IFL 0003', '0004 ALTERNATE ZIIP 0004'];

function hypervisor() {
  const sim = smallHost({ systemName: 'ZVMSIM', host: { cpus: 4, memoryGB: 64 } });
  return { sim, hv: createSmapiHypervisor({ hostName: 'default', caller: createInProcessCaller({ handler: sim }) }) };
}

describe('host summary parsing (docs/rest-interface.md §3.12, §5.6)', () => {
  it('takes version, CEC model, storage and IPL time from System_Information_Query and the rest from the other two', () => {
    expect(parseHostSummary('MAINT', 'default', { information: INFORMATION, processors: PROCESSORS, performance: PERFORMANCE })).toEqual({
      zccUserid: 'MAINT', systemName: 'LP1', version: '7.1.0', hypervisorVersion: 710, vcpus: 4, vcpusUsed: 3, cecModel: '2964',
      memoryMB: 4096, memoryMBUsed: (476504 * 4096) / 1048576, iplTime: 'IPL at 04/28/19 13:39:31 EDT',
    });
  });

  it('counts CP and IFL processors, and as used the master, alternates and parked ones', () => {
    expect(countProcessors(['0000 MASTER-PROCESSOR CP 0000', '0001 ALTERNATE CP 0000', '0002 STOPPED IFL 0001'])).toEqual({ total: 3, used: 2 });
  });

  it('sizes a free region in whole GiB', () => {
    expect(parseRegion('VOL001 3390 100 14564 POOL1 VOL001')).toEqual({
      volume_name: 'VOL001', device_type: '3390', start_cylinder: '100', free_size: 10, dasd_group: 'POOL1', region_name: 'VOL001',
    });
  });
});

describe('host query codecs', () => {
  it('round-trips System_Processor_Query and SSI_Query outputs through the wire', () => {
    const cpu = { partition_mode: 'Z/VM', processor_array: PROCESSORS };
    expect(decodeResponse('System_Processor_Query', encodeResponse('System_Processor_Query', 7, { rc: 0, rs: 0, output: cpu })).resp.output).toEqual(cpu);
    const ssi = { ssi_name: 'ZVM2SSI', ssi_mode: 'Stable', cross_system_timeouts: 'Enabled', ssi_pdr: 'IAS7CM_on_139E', ssi_member_array: ['1 OPNSTK2 Joined 01/12/2022_04:17:54 01/12/2022_04:17:54'] };
    expect(decodeResponse('SSI_Query', encodeResponse('SSI_Query', 8, { rc: 0, rs: 0, output: ssi })).resp.output).toEqual(ssi);
  });
});

describe('host queries over the simulator', () => {
  it('describes the host with one batch of three queries and follows logged-on guests in memory use', async () => {
    const { sim, hv } = hypervisor();
    const idle = await hv.hostQueries!.describe();
    expect(idle).toMatchObject({ systemName: 'ZVMSIM', hypervisorVersion: 710, vcpus: 4, vcpusUsed: 4, memoryMB: 65536, iplTime: 'IPL at 01/01/26 00:00:00 UTC' });
    await createGuest(sim, 'LINUX01');
    // started through the adapter: a write, so the facts read before it are not reused
    await hv.start('LINUX01');
    const busy = await hv.hostQueries!.describe();
    expect(busy.memoryMBUsed - idle.memoryMBUsed).toBe(2048);
    expect(await hv.describeHost()).toMatchObject({ cpus: 4, cpusUsed: 4, hostname: 'ZVMSIM', version: '7.1.0' });
  });

  it('lists pool volumes, free regions, every volume, and the SSI members VMRELOCATE moves between', async () => {
    const { sim, hv } = hypervisor();
    expect(await hv.hostQueries!.diskPoolVolumes('ECKD:POOL1')).toEqual(['VOL001', 'VOL002']);
    await createGuest(sim, 'LINUX01');
    await addDisk(sim, 'LINUX01', '0100', 1000);
    const regions = await hv.hostQueries!.diskPoolRegions('POOL1');
    expect(regions.map((r) => [r.volume_name, r.start_cylinder])).toEqual([['VOL001', '1001'], ['VOL002', '1']]);
    expect((await hv.hostQueries!.volumes()).map((v) => v.volume_name)).toEqual(['VOL001', 'VOL002', 'FBA001']);
    const ssi = await hv.hostQueries!.ssi();
    expect(ssi.filter((l) => l.startsWith('member_system_id'))).toEqual(['member_system_id = ZVMSIM', 'member_system_id = ZVMSIM2']);
    expect(ssi).toContain('output.ssiInfoCount = 2');
  });

  it('fails for an unknown pool with the SMAPI codes', async () => {
    await expect(hypervisor().hv.hostQueries!.diskPoolRegions('ECKD:NOPE')).rejects.toMatchObject({ rc: 420, rs: 8 });
  });
});
