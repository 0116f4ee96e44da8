import { API_VERSION, vswitchNameOf, type VswitchUser, type ZVswitch, type ZVswitchSpec } from '../../api/index.js';
import { AlreadyExistsError, NotFoundError } from '../../errors.js';
import type { VswitchOps } from '../../hypervisor/vswitch-port.js';
import type { StateStore } from '../../store/port.js';
import type { HypervisorResolver, RestConfig } from '../config.js';
import { FeilongError, ModID, feilongErrors, fromHvError } from '../feilong-error.js';
import { waitForObject } from '../guests/wait.js';
import { vswitchExists, vswitchNotFound, vswitchResourceName } from './vswitch-mapping.js';
import { restOwned } from '../ownership.js';

export interface VswitchServiceDeps {
  store: StateStore;
  hypervisors: HypervisorResolver;
  config: RestConfig;
  log: { warn(obj: object, msg: string): void };
}

const KIND = 'ZVswitch';

const condition = (v: ZVswitch, type: string) => v.status?.conditions?.find((c) => c.type === type);

/** The controller's verdict for the written generation: its error, done, or still converging. */
function verdict(v: ZVswitch, generation: number): 'done' | 'wait' | FeilongError {
  if ((v.status?.observedGeneration ?? 0) < generation) return 'wait';
  const synced = condition(v, 'Synced');
  if (synced?.status === 'False') {
    if (v.status?.lastError) return fromHvError(v.status.lastError);
    return new FeilongError('INTERNAL', { overallRC: 500, modID: ModID.network, rc: 500, rs: 1, errmsg: `Unexpected internal error in ZVM SDK, error: ${synced.reason}: ${synced.message}` });
  }
  return condition(v, 'Ready')?.status === 'True' ? 'done' : 'wait';
}

/**
 * The REST side of vswitches: ZVswitch writes followed by a bounded wait for the controller's
 * status (docs/architecture.md §4); live reads through the host's VswitchOps.
 */
export function createVswitchService(deps: VswitchServiceDeps) {
  const { store, config } = deps;
  const waitOpts = () => ({ timeoutMs: config.waitTimeoutMs, pollIntervalMs: config.pollIntervalMs });
  const seconds = Math.round(config.waitTimeoutMs / 1000);

  function ops(): VswitchOps {
    const vswitches = deps.hypervisors.forHost(config.defaultHost).vswitches;
    if (!vswitches) throw feilongErrors.notImplemented('vswitch', ModID.network);
    return vswitches;
  }

  async function find(name: string): Promise<ZVswitch | undefined> {
    const upper = name.toUpperCase();
    const byName = await store.get<ZVswitch>(KIND, { name: vswitchResourceName(name) });
    if (byName && vswitchNameOf(byName) === upper) return byName;
    return (await store.list<ZVswitch>(KIND)).items.find((v) => vswitchNameOf(v) === upper);
  }

  async function waitConverged(v: ZVswitch, what: string): Promise<ZVswitch> {
    const generation = v.metadata.generation ?? 1;
    const outcome = await waitForObject<ZVswitch, ZVswitch>(store, KIND, { name: v.metadata.name }, (cur) => {
      if (!cur) throw vswitchNotFound(vswitchNameOf(v));
      const state = verdict(cur, generation);
      if (state instanceof FeilongError) throw state;
      return state === 'done' ? cur : undefined;
    }, waitOpts());
    if (!outcome.done) throw feilongErrors.waitTimeout(what, seconds);
    return outcome.value;
  }

  async function waitGone(name: string, what: string): Promise<void> {
    const outcome = await waitForObject<ZVswitch, true>(store, KIND, { name }, (cur) => (cur ? undefined : true), waitOpts());
    if (!outcome.done) throw feilongErrors.waitTimeout(what, seconds);
  }

  /** A failed create leaves no resource behind (it never created a switch, so nothing is deleted). */
  async function undoCreate(name: string): Promise<void> {
    try {
      await store.delete(KIND, { name });
      await waitGone(name, `vswitch resource ${name} to be removed`);
    } catch (err) {
      if (!(err instanceof NotFoundError)) deps.log.warn({ err, name }, 'could not remove the vswitch of a failed create');
    }
  }

  async function create(spec: ZVswitchSpec): Promise<void> {
    const name = spec.switchName!;
    if (await find(name)) throw vswitchExists(name);
    if (await ops().describe(name)) throw vswitchExists(name); // defined outside: the host would answer 212/36
    const obj: ZVswitch = { apiVersion: API_VERSION, kind: KIND, metadata: restOwned({ name: vswitchResourceName(name) }), spec };
    let created: ZVswitch;
    try {
      created = await store.create(obj);
    } catch (err) {
      if (err instanceof AlreadyExistsError) throw vswitchExists(name);
      throw err;
    }
    await waitConverged(created, `vswitch ${name} to be created`).catch(async (err: unknown) => {
      if (err instanceof FeilongError && err.code !== 'TIMEOUT') await undoCreate(created.metadata.name);
      throw err;
    });
  }

  async function remove(name: string): Promise<void> {
    const v = await find(name);
    if (!v) return; // deleting an unknown vswitch succeeds (docs/rest-interface.md §1.3 #56)
    try {
      await store.delete(KIND, { name: v.metadata.name });
    } catch (err) {
      if (err instanceof NotFoundError) return;
      throw err;
    }
    await waitGone(v.metadata.name, `vswitch ${name.toUpperCase()} to be deleted`);
  }

  /** Rewrites spec.authorizedUsers and waits for the grants to converge. */
  async function setUsers(v: ZVswitch, users: VswitchUser[], what: string): Promise<void> {
    let updated: ZVswitch;
    try {
      updated = await store.patch<ZVswitch>(KIND, { name: v.metadata.name }, { spec: { authorizedUsers: users } });
    } catch (err) {
      if (err instanceof NotFoundError) throw vswitchNotFound(vswitchNameOf(v));
      throw err;
    }
    if (updated.metadata.generation === v.metadata.generation) return; // nothing changed
    await waitConverged(updated, what);
  }

  return { find, create, remove, setUsers, ops };
}

export type VswitchService = ReturnType<typeof createVswitchService>;
