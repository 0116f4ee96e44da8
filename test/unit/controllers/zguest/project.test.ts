import { buildDefinition, DEFAULT_GUEST_DEFAULTS } from '../../../../src/controllers/zguest/definition.js';
import { projectGuestState, UNPROJECTABLE } from '../../../../src/controllers/zguest/project.js';
import type { Step } from '../../../../src/controllers/zguest/steps.js';
import { createInProcessCaller } from '../../../../src/hypervisor/smapi/in-process-caller.js';
import type { GuestState, Hypervisor } from '../../../../src/hypervisor/port.js';
import { createSimHost } from '../../../../src/hypervisor/sim/index.js';
import { createSmapiHypervisor } from '../../../../src/hypervisor/zvm/hypervisor.js';
import { aGuest } from '../../../builders/zguest.js';

/** The fields the planner and status read; extent placement is the directory manager's choice. */
function essentials(s: GuestState | undefined) {
  if (!s) return undefined;
  return {
    userid: s.userid,
    power: s.power,
    active: s.active,
    cpus: s.directory.cpus,
    memory: s.directory.memory,
    maxMemory: s.directory.maxMemory,
    disks: s.directory.disks.map((d) => d.vdev).sort(),
    nics: s.directory.nics.map((n) => ({ vdev: n.vdev, vswitch: n.vswitch, macId: n.macId })).sort((a, b) => a.vdev.localeCompare(b.vdev)),
    owner: s.directory.lines.filter((l) => l.startsWith('*')),
  };
}

async function applyOnHost(hv: Hypervisor, userid: string, step: Step): Promise<void> {
  switch (step.op) {
    case 'createGuest': return hv.createGuest(step.definition);
    case 'deleteGuest': return hv.deleteGuest(userid);
    case 'addDisk': await hv.addDisk(userid, step.disk); return;
    case 'removeDisk': return hv.removeDisk(userid, step.vdev);
    case 'start': return hv.start(userid);
    case 'stop': return hv.stop(userid);
    case 'pause': return hv.pause(userid);
    case 'unpause': return hv.unpause(userid);
    case 'setDirectoryCpus': return hv.setDirectoryCpus(userid, step.count);
    case 'defineActiveCpus': return hv.defineActiveCpus(userid, { active: step.active, count: step.count });
    case 'rewriteDirectory': { const { op: _op, ...change } = step; return hv.rewriteDirectory(userid, change); }
    case 'createNic': return hv.createNic(userid, { vdev: step.vdev, macId: step.macId });
    case 'deleteNic': return hv.deleteNic(userid, step.vdev);
    case 'coupleNic': return hv.coupleNic(userid, step.vdev, step.vswitch);
    case 'uncoupleNic': return hv.uncoupleNic(userid, step.vdev);
    default: throw new Error(`not a host step: ${step.op}`);
  }
}

describe('projectGuestState', () => {
  const guest = aGuest({ userid: 'PROJ01', vcpus: 2, memory: '2G', maxMemory: '8G' });
  const definition = buildDefinition(guest, DEFAULT_GUEST_DEFAULTS);
  const phases: Step[][] = [
    [
      { op: 'createGuest', definition },
      { op: 'addDisk', disk: { vdev: '0100', pool: 'ECKD:POOL1', size: '1G' } },
      { op: 'addDisk', disk: { vdev: '0101', pool: 'FBA:POOL2', size: '512M' } },
      { op: 'createNic', vdev: '1000', macId: 'ABCDEF' },
      { op: 'coupleNic', vdev: '1000', vswitch: 'vsw1' },
    ],
    [{ op: 'start' }],
    [{ op: 'rewriteDirectory', memory: '4G', cpus: 4 }, { op: 'defineActiveCpus', count: 4, active: 2 }],
    [{ op: 'pause' }],
    [{ op: 'unpause' }],
    [{ op: 'stop' }, { op: 'removeDisk', vdev: '0101' }, { op: 'uncoupleNic', vdev: '1000' }],
    [{ op: 'setDirectoryCpus', count: 1 }, { op: 'deleteNic', vdev: '1000' }, { op: 'start' }],
    [{ op: 'deleteGuest' }],
  ];

  it('predicts exactly what the next read of the simulator shows, phase after phase', async () => {
    const sim = createSimHost();
    await sim.handle({ fn: 'Virtual_Network_Vswitch_Create_Extended', target: 'MAINT', params: { switch_name: 'VSW1', real_device_address: '1000' } });
    const hv = createSmapiHypervisor({ hostName: 'default', caller: createInProcessCaller({ handler: sim }) });
    let held: GuestState | undefined;
    for (const steps of phases) {
      for (const step of steps) await applyOnHost(hv, 'PROJ01', step);
      const projected = projectGuestState(held, steps);
      expect(projected).not.toBe(UNPROJECTABLE);
      const read = await hv.describeGuest('PROJ01');
      expect(essentials(projected as GuestState | undefined)).toEqual(essentials(read));
      held = read;
    }
    expect(held).toBeUndefined();
  });

  it('leaves store-only steps out and does not touch the state it was given', () => {
    const before: GuestState = { userid: 'A', power: 'off', directory: { userid: 'A', lines: [], memory: '1G', maxMemory: '8G', maxCpus: 4, cpus: 1, disks: [], nics: [], dedicates: [] } };
    const after = projectGuestState(before, [{ op: 'addFinalizer' }, { op: 'start' }, { op: 'ackToken', token: 'reboot', value: 'x', cycled: false }]);
    expect(after).toMatchObject({ power: 'on', active: { cpus: 1, memoryMB: 1024 } });
    expect(before.power).toBe('off');
  });

  it('answers UNPROJECTABLE for a step it does not model or a change to an absent guest', () => {
    expect(projectGuestState(undefined, [{ op: 'start' }])).toBe(UNPROJECTABLE);
    const unknown = { op: 'punchGrowRootScript', osVersion: 'rhel9' } as Step;
    const state = projectGuestState(undefined, [{ op: 'createGuest', definition }]) as GuestState;
    expect(projectGuestState(state, [unknown])).toBe(UNPROJECTABLE);
    expect(projectGuestState(state, [{ op: 'coupleNic', vdev: '2000', vswitch: 'X' }])).toBe(UNPROJECTABLE);
  });

  it('leaves the state as it was after a deploy: the image changes a disk\'s contents, not the directory or the power', () => {
    const state = projectGuestState(undefined, [{ op: 'createGuest', definition }, { op: 'addDisk', disk: { vdev: '0100', pool: 'ECKD:POOL1', size: '1G' } }]) as GuestState;
    expect(projectGuestState(state, [{ op: 'deployImage', image: 'rhel9', vdev: '0100', transportFiles: '/cfg.tgz' }])).toEqual(state);
  });
});
