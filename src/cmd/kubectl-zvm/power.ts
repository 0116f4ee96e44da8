/**
 * start, stop, softstop, pause, unpause, restart, reboot: REST's own guest actions (spec.powerState,
 * or a one-shot token), run over the backend's store. Without --wait the wait's bound is 0: the write
 * is made, the verb says it is requested, and the controller finishes in the background.
 */
import { GUEST_ACTIONS } from '../../rest/guests/actions.js';
import { connectedTo, writeAndMaybeWait, type VerbOptions } from './run.js';
import { guestServiceOf, requireGuest } from './connect.js';
import { whileWatching } from './follow.js';
import type { PowerVerb } from './verbs.js';

export { POWER_VERBS, type PowerVerb } from './verbs.js';

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
