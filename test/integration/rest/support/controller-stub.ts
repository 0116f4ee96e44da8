import type { HvErrorFields } from '../../../../src/errors.js';
import { Annotations, powerOfSpec, type ZGuest, type ZGuestStatus } from '../../../../src/api/index.js';
import type { StateStore } from '../../../../src/store/port.js';

export interface ControllerStub {
  /** the next reconcile of this userid fails with these fields (Synced=False, status.lastError) */
  failures: Map<string, HvErrorFields>;
  /** while true the stub writes nothing (a controller that is down or slow) */
  paused: boolean;
  /** userids whose guests are seen as "on the host" by the stub (affects nothing but bookkeeping) */
  stop(): Promise<void>;
}

const condition = (type: string, ok: boolean, reason: string, message = '') => ({
  type, status: ok ? ('True' as const) : ('False' as const), reason, message, lastTransitionTime: new Date().toISOString(),
});

function computeStatus(g: ZGuest, failure: HvErrorFields | undefined): ZGuestStatus {
  const generation = g.metadata.generation ?? 1;
  if (failure) {
    return {
      ...g.status, observedGeneration: generation, lastError: failure,
      conditions: [condition('Provisioned', false, 'NotProvisioned'), condition('Synced', false, `HV_${failure.rc}_${failure.rs}`, failure.errmsg)],
    };
  }
  const annotations = g.metadata.annotations ?? {};
  return {
    observedGeneration: generation,
    powerState: powerOfSpec(g.spec.powerState),
    disks: (g.spec.disks ?? []).map((d) => ({ vdev: d.vdev ?? '', size: d.size, ...(d.format ? { format: d.format } : {}), ...(d.boot ? { isBootDisk: true } : {}), diskPool: d.pool ?? '' })),
    nics: (g.spec.nics ?? []).map((n) => ({ vdev: n.vdev, ...(n.vswitch ? { vswitch: n.vswitch } : {}) })),
    conditions: [condition('Provisioned', true, 'Provisioned'), condition('Synced', true, 'Synced'), condition('Ready', true, 'Ready')],
    ...(annotations[Annotations.rebootRequestedAt] ? { lastHandledRebootAt: annotations[Annotations.rebootRequestedAt] } : {}),
    ...(annotations[Annotations.resetRequestedAt] ? { lastHandledResetAt: annotations[Annotations.resetRequestedAt] } : {}),
  };
}

function needsWork(g: ZGuest): boolean {
  const a = g.metadata.annotations ?? {};
  return (g.status?.observedGeneration ?? 0) < (g.metadata.generation ?? 1)
    || (a[Annotations.rebootRequestedAt] ?? '') !== (g.status?.lastHandledRebootAt ?? '')
    || (a[Annotations.resetRequestedAt] ?? '') !== (g.status?.lastHandledResetAt ?? '');
}

/**
 * Plays the ZGuest controller's part for REST tests: writes the status the conventions promise
 * (Provisioned, powerState, disks, token acks) or a configured failure, and releases deleted
 * objects. Polls every few milliseconds until stopped.
 */
export function startControllerStub(store: StateStore, opts: { finalizer?: string } = {}): ControllerStub {
  const stub = { failures: new Map<string, HvErrorFields>(), paused: false } as ControllerStub;
  let running = true;
  const loop = (async () => {
    while (running) {
      if (!stub.paused) await tick();
      await new Promise((r) => setTimeout(r, 3));
    }
  })();

  async function tick(): Promise<void> {
    const { items } = await store.list<ZGuest>('ZGuest');
    for (const g of items) {
      const key = { namespace: g.metadata.namespace, name: g.metadata.name };
      if (g.metadata.deletionTimestamp) {
        await store.patch('ZGuest', key, { metadata: { finalizers: null } }).catch(() => undefined);
        continue;
      }
      if (opts.finalizer && !(g.metadata.finalizers ?? []).includes(opts.finalizer)) {
        await store.patch('ZGuest', key, { metadata: { finalizers: [opts.finalizer] } });
        continue;
      }
      if (!needsWork(g)) continue;
      const userid = g.spec.userid.toUpperCase();
      const failure = stub.failures.get(userid);
      stub.failures.delete(userid);
      await store.updateStatus<ZGuest>({ ...g, status: computeStatus(g, failure) }).catch(() => undefined);
    }
  }

  stub.stop = async () => {
    running = false;
    await loop;
  };
  return stub;
}
