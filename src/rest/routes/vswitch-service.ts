import { API_VERSION, vswitchNameOf, type VswitchUser, type ZVswitch, type ZVswitchSpec } from '../../api/index.js';
import type { VswitchOps } from '../../hypervisor/index.js';
import type { StateStore } from '../../store/port.js';
import type { HypervisorResolver, RestConfig } from '../config.js';
import { ModID, feilongErrors } from '../feilong-error.js';
import type { WriteAndWait } from '../write-and-wait.js';
import { vswitchExists, vswitchNotFound, vswitchResourceName } from './vswitch-mapping.js';
import { restOwned } from '../ownership.js';

export interface VswitchServiceDeps {
  store: StateStore;
  hypervisors: HypervisorResolver;
  config: RestConfig;
  writes: WriteAndWait;
}

const KIND = 'ZVswitch';

/**
 * The REST side of vswitches: ZVswitch writes followed by a bounded wait for the controller's
 * verdict (write-and-wait.ts; docs/architecture.md §4); live reads through the host's VswitchOps.
 */
export function createVswitchService(deps: VswitchServiceDeps) {
  const { store, config } = deps;
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

  const ready = (v: ZVswitch) => v.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

  async function create(spec: ZVswitchSpec): Promise<void> {
    const name = spec.switchName!;
    if (await find(name)) throw vswitchExists(name);
    if (await ops().describe(name)) throw vswitchExists(name); // defined outside: the host would answer 212/36
    const obj: ZVswitch = { apiVersion: API_VERSION, kind: KIND, metadata: restOwned({ name: vswitchResourceName(name) }), spec };
    await deps.writes.create(obj, { what: `vswitch ${name} to be created`, ready, notFound: () => vswitchNotFound(name), exists: () => vswitchExists(name) });
  }

  async function remove(name: string): Promise<void> {
    const v = await find(name);
    if (!v) return; // deleting an unknown vswitch succeeds (docs/rest-interface.md §1.3 #56)
    await deps.writes.remove(KIND, { name: v.metadata.name }, { what: `vswitch ${name.toUpperCase()} to be deleted` });
  }

  /** Rewrites spec.authorizedUsers and waits for the grants to converge. */
  async function setUsers(v: ZVswitch, users: VswitchUser[], what: string): Promise<void> {
    await deps.writes.patch(v, { spec: { authorizedUsers: users } }, { what, ready, notFound: () => vswitchNotFound(vswitchNameOf(v)), unchangedIsDone: true });
  }

  return { find, create, remove, setUsers, ops };
}

export type VswitchService = ReturnType<typeof createVswitchService>;
