/**
 * The power verbs as data, shared by `kubectl zvm` and `zvm-operator start|stop|…`: what --help, completion
 * and the command tables need, without loading what running a verb needs (power.ts).
 */
import type { GUEST_ACTIONS } from '../../rest/guests/actions.js';

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
