import type { ZGuest, ZGuestSpec } from '../../api/index.js';
import type { GuestState } from '../../hypervisor/index.js';
import { feilongErrors } from '../feilong-error.js';
import type { GuestService } from './service.js';
import { formatSizeMB, parseSizeMB } from './sizes.js';

const POWER: Record<string, 'Running' | 'Stopped' | 'Paused'> = { on: 'Running', off: 'Stopped', paused: 'Paused' };

function specSize(size: string, what: string): string {
  const mb = parseSizeMB(size);
  const text = mb === undefined ? '' : formatSizeMB(mb);
  if (!/^[1-9][0-9]{0,3}[MG]$/.test(text)) throw feilongErrors.invalidArg(`${what} '${size}' of the directory entry can not be managed`);
  return text;
}

/** The spec that describes an existing guest as it is, so adopting it changes nothing. */
export function computeAdoptedSpec(state: GuestState, host: string): ZGuestSpec {
  const dir = state.directory;
  const spec: ZGuestSpec = {
    userid: state.userid.toUpperCase(),
    host,
    adopt: true,
    vcpus: Math.max(1, dir.cpus),
    maxCpus: Math.max(1, dir.maxCpus),
    memory: specSize(dir.memory, 'memory'),
    maxMemory: specSize(dir.maxMemory, 'max memory'),
    powerState: POWER[state.power] ?? 'Stopped',
  };
  if (dir.profile) spec.profile = dir.profile.toUpperCase();
  return spec;
}

/** register_vm: an existing z/VM guest becomes managed through spec.adopt (docs/architecture.md §3). */
export async function adoptGuest(service: GuestService, userid: string): Promise<string> {
  const upper = userid.toUpperCase();
  if (await service.find(upper)) return '';
  const state = await service.hypervisorFor().describeGuest(upper);
  if (!state) throw feilongErrors.guestNotFound(upper);
  await service.createAndWait(computeAdoptedSpec(state, service.config.defaultHost), true);
  return '';
}

/** deregister_vm: stop managing the guest and leave it on the host (deletionPolicy Orphan). */
export async function releaseGuest(service: GuestService, guest: ZGuest): Promise<string> {
  await service.patchAndWait(guest, { spec: { deletionPolicy: 'Orphan' } }, () => true, `guest '${guest.spec.userid}' to be released`);
  await service.remove(guest.spec.userid);
  return '';
}
