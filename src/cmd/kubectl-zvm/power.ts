/**
 * start, stop, softstop, pause, unpause, restart, reboot: REST's own guest actions (spec.powerState,
 * or a one-shot token), run over the backend's store. Without --wait the wait's bound is 0: the write
 * is made, the verb says it is requested, and the controller finishes in the background.
 */
import { GUEST_ACTIONS } from '../../rest/guests/actions.js';
import { connectedTo, writeAndMaybeWait, type VerbOptions } from './run.js';
import { guestServiceOf, requireGuest } from './connect.js';
import { whileWatching } from './follow.js';

export interface PowerVerb {
  verb: string;
  /** the REST action that does it */
  action: keyof typeof GUEST_ACTIONS;
  /** what it changes, for --help and the README */
  summary: string;
  /** the word once it happened */
  done: string;
}

export const POWER_VERBS: PowerVerb[] = [
  { verb: 'start', action: 'start', summary: 'log the guest on: spec.powerState Running', done: 'started' },
  { verb: 'stop', action: 'stop', summary: 'log the guest off: spec.powerState Stopped', done: 'stopped' },
  { verb: 'softstop', action: 'softstop', summary: 'stop the guest as REST\'s softstop does: spec.powerState Stopped (--timeout bounds --wait)', done: 'stopped' },
  { verb: 'pause', action: 'pause', summary: 'pause a running guest: spec.powerState Paused', done: 'paused' },
  { verb: 'unpause', action: 'unpause', summary: 'resume a paused guest: spec.powerState Running', done: 'unpaused' },
  { verb: 'restart', action: 'reset', summary: 'log the guest off and on again: the one-shot annotation zvm.dev/reset-requested-at', done: 'restarted' },
  { verb: 'reboot', action: 'reboot', summary: 'reboot the guest operating system: the one-shot annotation zvm.dev/reboot-requested-at', done: 'rebooted' },
];

export async function runPowerVerb(v: PowerVerb, name: string, opts: VerbOptions): Promise<void> {
  await connectedTo(opts, async (b, out) => {
    const guest = await requireGuest(b, name);
    const service = guestServiceOf(b, opts.wait ? opts.timeoutMs : 0);
    const action = GUEST_ACTIONS[v.action];
    if (action.managed === false) throw new Error(`${v.action} is not a guest action`);
    const key = { namespace: b.namespace, name };
    await writeAndMaybeWait(opts.wait, () => whileWatching(b.feed, 'ZGuest', key, () => undefined, () => action.run({ service, guest, body: {} })),
      () => out(`zguest.zvm.dev/${name} ${v.done}`), () => out(`zguest.zvm.dev/${name} ${v.verb} requested`));
  });
}
