/**
 * The ZVMMachine controller (Cluster API InfraMachine): read the ZVMMachine, its Machine and Cluster, its
 * ZGuest and the bootstrap Secret; plan (plan.ts); act through the store (the guest controller does the
 * z/VM work) and the host's management guest (the bootstrap punch); write status (status.ts).
 */
import {
  BOOTSTRAP_PUNCHED_ANNOTATION, hostOf, ZVMMACHINE_FINALIZER, type Resource, type ZGuest, type ZVMCluster, type ZVMMachine,
} from '../../api/index.js';
import { AlreadyExistsError, InvalidInputError, NotFoundError, NotSupportedError } from '../../errors.js';
import { done, requeueAfter, type Reconciler, type Result } from '../../runtime/result.js';
import { keyOf, type ObjectKey } from '../../store/port.js';
import type { HostReconcilerDeps } from '../kit/deps.js';
import { addFinalizer, removeFinalizer, writeStatusIfChanged } from '../kit/index.js';
import { readerFileOf, type BootstrapSecret, type ReaderFile } from './bootstrap.js';
import { clusterNameOf, ownerMachineName, ownsGuest, type Cluster, type Machine } from './facts.js';
import { MachineWaits, planMachine, type MachineFacts, type MachinePlan, type MachineStep } from './plan.js';
import { computeMachineStatus } from './status.js';

export interface ZVMMachineReconcilerDeps extends HostReconcilerDeps {
  /** how soon to look again while the machine waits for Cluster API or its guest; default 2 s */
  pollMs?: number;
}

export const MachineEvents = {
  guestCreated: 'GuestCreated',
  bootstrapPunched: 'BootstrapDataPunched',
  guestStarted: 'GuestStarted',
  guestDeleted: 'GuestDeleted',
} as const;

/** The ZVMMachine a ZGuest belongs to (its controller owner reference). */
export function mapGuestToMachine(obj: Resource): ObjectKey[] {
  const owner = obj.metadata.ownerReferences?.find((r) => r.kind === 'ZVMMachine');
  return owner ? [{ namespace: obj.metadata.namespace, name: owner.name }] : [];
}

export function createZVMMachineReconciler(deps: ZVMMachineReconcilerDeps): Reconciler {
  const clock = deps.clock ?? (() => new Date());
  const pollMs = deps.pollMs ?? 2000;
  const { store } = deps;
  const nsKey = (zm: Resource, name: string): ObjectKey => ({ namespace: zm.metadata.namespace, name });

  /** Everything the plan decides from; the Secret only when the guest is waiting for it. */
  async function read(zm: ZVMMachine): Promise<{ facts: MachineFacts; file?: ReaderFile }> {
    const machineName = ownerMachineName(zm);
    const machine = machineName ? await store.get<Machine>('Machine', nsKey(zm, machineName)) : undefined;
    const clusterName = clusterNameOf(zm, machine);
    const cluster = clusterName ? await store.get<Cluster>('Cluster', nsKey(zm, clusterName)) : undefined;
    const infraName = cluster?.spec.infrastructureRef?.name;
    const zvmCluster = infraName ? await store.get<ZVMCluster>('ZVMCluster', nsKey(zm, infraName)) : undefined;
    const guest = await store.get<ZGuest>('ZGuest', nsKey(zm, zm.metadata.name));
    const taken = new Set<string>();
    if (!guest) for (const g of (await store.list<ZGuest>('ZGuest')).items) taken.add(`${hostOf(g)}/${g.spec.userid.toUpperCase()}`);
    const facts: MachineFacts = { zm, machine, cluster, zvmCluster, guest, taken };
    const secretName = machine?.spec.bootstrap?.dataSecretName;
    const needsData = guest && ownsGuest(zm, guest) && !guest.metadata.annotations?.[BOOTSTRAP_PUNCHED_ANNOTATION] && guest.status?.phase === 'Stopped';
    if (!secretName || !needsData) return { facts };
    const secret = await store.get<Resource & BootstrapSecret>('Secret', nsKey(zm, secretName));
    if (!secret) return { facts: { ...facts, bootstrap: { problem: `bootstrap Secret ${secretName} not found` } } };
    try {
      const file = readerFileOf(secret, { name: zm.metadata.name, uid: zm.metadata.uid, host: hostOf(guest) });
      return { facts: { ...facts, bootstrap: { digest: file.digest } }, file };
    } catch (err) {
      if (!(err instanceof InvalidInputError)) throw err;
      return { facts: { ...facts, bootstrap: { problem: `bootstrap Secret ${secretName}: ${err.message}` } } };
    }
  }

  async function punch(zm: ZVMMachine, step: Extract<MachineStep, { op: 'punchBootstrap' }>, file: ReaderFile | undefined, signal: AbortSignal): Promise<void> {
    const mgmt = deps.hypervisors.forHost(step.host)?.mgmt;
    if (!file) throw new InvalidInputError('no bootstrap data read');
    if (!mgmt?.punchFile) throw new NotSupportedError(`ZHost ${step.host} has no management guest configured: bootstrap data reaches a guest's reader through it`);
    await mgmt.punchFile(step.userid, { name: file.name, bytes: file.bytes }, { signal });
    // recorded on the guest, which moves with the machine: a move or a rerun never punches again
    await store.patch('ZGuest', nsKey(zm, zm.metadata.name), { metadata: { annotations: { [BOOTSTRAP_PUNCHED_ANNOTATION]: file.digest } } });
    deps.events.event(zm, 'Normal', MachineEvents.bootstrapPunched, `bootstrap data (${file.name}, ${file.bytes.length} bytes) punched to ${step.userid}'s reader`);
  }

  async function act(zm: ZVMMachine, plan: MachinePlan, file: ReaderFile | undefined, signal: AbortSignal): Promise<ZVMMachine | undefined> {
    let current = zm;
    for (const step of plan.steps) {
      switch (step.op) {
        case 'addFinalizer': current = await addFinalizer(store, current, ZVMMACHINE_FINALIZER); break;
        case 'removeFinalizer': await removeFinalizer(store, current, ZVMMACHINE_FINALIZER); return undefined;
        case 'setSpec': current = await store.patch<ZVMMachine>('ZVMMachine', keyOf(current), { spec: { host: step.host, providerID: step.providerID } }); break;
        case 'createGuest':
          try {
            await store.create(step.guest);
            deps.events.event(zm, 'Normal', MachineEvents.guestCreated, `created ZGuest ${step.guest.metadata.name} (${step.guest.spec.userid} on ${step.guest.spec.host})`);
          } catch (err) {
            if (!(err instanceof AlreadyExistsError)) throw err;
          }
          break;
        case 'deleteGuest':
          try {
            await store.delete('ZGuest', nsKey(zm, zm.metadata.name));
            deps.events.event(zm, 'Normal', MachineEvents.guestDeleted, `deleting ZGuest ${zm.metadata.name}`);
          } catch (err) {
            if (!(err instanceof NotFoundError)) throw err;
          }
          break;
        case 'punchBootstrap': await punch(zm, step, file, signal); break;
        case 'startGuest':
          await store.patch('ZGuest', nsKey(zm, zm.metadata.name), { spec: { powerState: 'Running' } });
          deps.events.event(zm, 'Normal', MachineEvents.guestStarted, `starting guest ${plan.userid ?? ''}`);
          break;
      }
    }
    return current;
  }

  return {
    kind: 'ZVMMachine',
    async reconcile(key: ObjectKey, signal: AbortSignal): Promise<Result> {
      const zm = await store.get<ZVMMachine>('ZVMMachine', key);
      if (!zm) return done();
      const { facts, file } = await read(zm);
      const plan = planMachine(facts);
      const after = await act(zm, plan, file, signal);
      if (!after) return done();
      const guest = plan.steps.some((s) => s.op !== 'addFinalizer' && s.op !== 'setSpec') ? await store.get<ZGuest>('ZGuest', nsKey(zm, zm.metadata.name)) : facts.guest;
      await writeStatusIfChanged(store, after, computeMachineStatus(after, plan, guest, clock()));
      if (!plan.waiting) return done();
      return plan.waiting.reason === MachineWaits.paused ? requeueAfter(pollMs * 5) : requeueAfter(pollMs);
    },
  };
}
