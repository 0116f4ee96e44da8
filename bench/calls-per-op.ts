/**
 * Figure 1: hypervisor calls per operation, by function, compared with the reference sequence.
 * One guest goes through create (2 disks + a NIC), deploy, start, live resize, stop, add disk and
 * delete; each step is a spec change in the store (what kubectl or the REST sidecar writes), and
 * the calls are counted until the controller is quiet again: SMAPI calls at the SMAPI server, and
 * the management guest's commands and SFTP requests (deploy) where the adapter issues them
 * (lib/mgmt-counter.ts). The image is imported once beforehand, uncounted; deploy writes it onto
 * the stopped guest's boot disk and punches a config drive, through the ZGuest controller.
 */
import { API_VERSION, type ZGuest, type ZImage } from '../src/api/index.js';
import { startBenchHost } from './lib/bench-host.js';
import { startBenchMgmt, type BenchMgmt } from './lib/bench-mgmt.js';
import type { Figure } from './lib/figures.js';
import { installMgmtCounter, type MgmtCounter } from './lib/mgmt-counter.js';
import { aBenchGuest, isReady, startWorld, waitFor, waitQuiet, type World } from './lib/operator-world.js';
import { countOf, REFERENCE, type RefOperation } from './reference-sequences.js';

export interface OpResult {
  op: string;
  ours: Record<string, number>;
  oursTotal: number;
  reference: number;
  ratio: number | null;
  note?: string;
}

const KEY = { namespace: 'default', name: 'bench001' };
const VSWITCH = 'BENCHVSW';
const IMAGE = 'benchimg';
/** a config drive on the management guest, as feilong's transportfiles (FR §3.4 step 3) */
const CFGDRIVE = '/var/lib/zvmsdk/cfgdrive/bench001.tgz';

type Host = Awaited<ReturnType<typeof startBenchHost>>;
type Until = (g: ZGuest | undefined) => boolean;

async function settle(world: World, host: Host, deadline: number, until: Until): Promise<void> {
  await waitFor(async () => until(world.operator.guests.get(KEY)), deadline);
  await waitQuiet(host, 400, deadline);
}

const ready: Until = (g) => g !== undefined && isReady(g);

function stepsOf(world: World): { op: string; act: () => Promise<unknown>; until: Until; na?: string }[] {
  const patch = (spec: Record<string, unknown>) => world.store.patch('ZGuest', KEY, { spec });
  return [
    {
      op: 'create',
      act: () => world.store.create(aBenchGuest('bench001', {
        vcpus: 2, memory: '2G', maxMemory: '8G', powerState: 'Stopped',
        disks: [{ size: '1G', boot: true }, { size: '1G' }],
        nics: [{ vdev: '1000', vswitch: VSWITCH }],
      })),
      until: ready,
    },
    {
      op: 'deploy',
      act: () => patch({ image: IMAGE, imageDeploy: { transportFiles: CFGDRIVE } }),
      until: (g) => ready(g) && g?.status?.deployedImage === IMAGE,
    },
    { op: 'start', act: () => patch({ powerState: 'Running' }), until: (g) => ready(g) && g?.status?.powerState === 'on' },
    { op: 'live resize', act: () => patch({ vcpus: 4, memory: '4G' }), until: (g) => ready(g) && g?.status?.memory === '4G' },
    { op: 'stop', act: () => patch({ powerState: 'Stopped' }), until: (g) => ready(g) && g?.status?.powerState === 'off' },
    {
      op: 'add disk',
      act: () => patch({ disks: [{ size: '1G', boot: true }, { size: '1G' }, { size: '1G' }] }),
      until: (g) => ready(g) && (g?.status?.disks?.length ?? 0) === 3,
    },
    { op: 'delete', act: () => world.store.delete('ZGuest', KEY), until: (g) => g === undefined },
  ];
}

async function measure(world: World, host: Host, counter: MgmtCounter, deadline: number): Promise<OpResult[]> {
  const ops: OpResult[] = [];
  let guestHasNic = false;
  await world.operator.guests.waitForSync();
  for (const step of stepsOf(world)) {
    const ref = REFERENCE.find((r) => r.op === step.op) as RefOperation;
    if (step.na) {
      ops.push({ op: step.op, ours: {}, oursTotal: 0, reference: countOf(ref.calls), ratio: null, note: step.na });
      continue;
    }
    await waitQuiet(host, 200, deadline);
    host.reset();
    counter.reset();
    await step.act();
    await settle(world, host, deadline, step.until);
    const ours = { ...host.counts(), ...counter.counts() };
    const oursTotal = host.total() + counter.total();
    // the guest was created with a coupled NIC: the reference's delete revokes it (FR §3.2 step 4)
    const nicCalls: boolean = Object.keys(ours).some((fn) => fn.startsWith('Virtual_Network_')) || (step.op === 'delete' && guestHasNic);
    if (step.op === 'create') guestHasNic = nicCalls;
    const reference = countOf(ref.calls) + (nicCalls && ref.nicPart ? countOf(ref.nicPart) : 0);
    const note = ref.nicPart && !nicCalls ? 'NIC part n/a (not implemented): compared without it' : ref.nicPart ? 'with the NIC part' : undefined;
    ops.push({ op: step.op, ours, oursTotal, reference, ratio: oursTotal / reference, ...(note ? { note } : {}) });
  }
  return ops;
}

/** The image arrives as users bring it: a ZImage resource that the ZImage controller imports. */
async function importThroughZImage(world: World, url: string, deadline: number): Promise<void> {
  await world.store.create<ZImage>({ apiVersion: API_VERSION, kind: 'ZImage', metadata: { name: IMAGE }, spec: { source: { import: { url, osVersion: 'rhel8.6' } } } });
  const imported = await waitFor(async () => {
    const image = await world.store.get<ZImage>('ZImage', { name: IMAGE });
    return image?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  }, deadline);
  if (!imported) throw new Error('the bench image was not imported before the deadline');
}

export async function runCallsPerOp(opts: { latencyMs: number; deadline: number }): Promise<{ figures: Figure[]; ops: OpResult[] }> {
  const host = await startBenchHost({ latencyMs: opts.latencyMs, concurrency: 8 });
  await host.sim.handle({ fn: 'Virtual_Network_Vswitch_Create_Extended', target: 'MAINT', params: { switch_name: VSWITCH, real_device_address: '1000' } });
  const counter = installMgmtCounter();
  let mgmt: BenchMgmt | undefined;
  let world: World | undefined;
  let ops: OpResult[];
  try {
    mgmt = await startBenchMgmt(host);
    // setup, not counted: measure() resets the counters before each step
    mgmt.putFile(CFGDRIVE, Buffer.alloc(4096, 7));
    world = await startWorld({ host, persistent: true, mgmt: mgmt.mgmt });
    await importThroughZImage(world, mgmt.imageUrl(IMAGE), opts.deadline);
    ops = await measure(world, host, counter, opts.deadline);
  } finally {
    await world?.stop();
    await mgmt?.close();
    counter.uninstall();
    await host.close();
  }
  const measured = ops.filter((o) => o.ratio !== null);
  const total = measured.reduce((n, o) => n + o.oursTotal, 0) / measured.reduce((n, o) => n + o.reference, 0);
  const figures: Figure[] = ops.map((o) => ({
    id: `calls.${o.op.replace(/\s+/g, '-')}`,
    name: `calls per op: ${o.op}`,
    value: o.ratio,
    unit: 'ratio',
    target: { op: '<=', value: 0.8 },
    detail: o.ratio === null ? (o.note ?? 'n/a') : `${o.oursTotal} vs ${o.reference} reference calls${o.note ? `; ${o.note}` : ''}: ${JSON.stringify(o.ours)}`,
  }));
  figures.push({ id: 'calls.total', name: 'calls per op: all measured ops', value: total, unit: 'ratio', target: { op: '<=', value: 0.8 }, detail: `${measured.map((o) => o.op).join(', ')}` });
  return { figures, ops };
}
