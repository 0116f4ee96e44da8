/**
 * VMRELOCATE (live guest relocation within an SSI cluster). The host group is the configured
 * `ssiMembers`. TEST only validates; MOVE of a logged-on guest to another member ends its session
 * here (it leaves this host's active list; the directory entry stays, as SSI shares it).
 *
 * Simulator choices where IBM's tables give no single answer: not an SSI member → 4/3008; unknown
 * or own destination → 4/3000 with an error buffer of HCP message numbers ("1940"); guest not in
 * the directory → 200/4; not logged on → 200/12; action other than MOVE/TEST/CANCEL → 24.
 */
import { spec } from '../context.js';
import type { HandlerSpec, SimContext } from '../context.js';
import { SimFault, Syntax, syntaxFault } from '../fault.js';
import type { Params } from '../params.js';
import { logoff } from '../power.js';
import { requireRunning } from './power.js';

const ACTIONS = new Set(['MOVE', 'TEST', 'CANCEL']);
const FORCE_WORDS = new Set(['ARCHITECTURE', 'DOMAIN', 'STORAGE']);

function readRequest(p: Params): { action: string; destination: string } {
  const action = p.str('action', 2, { min: 1, max: 8 }).toUpperCase();
  if (!ACTIONS.has(action)) throw syntaxFault(p.fn, 2, Syntax.unrecognized, `action ${action}`);
  const destination = p.str('destination', 2, { max: 8 }).toUpperCase();
  const force = p.str('force', 2).toUpperCase().split(/\s+/).filter((w) => w !== '');
  if (force.some((w) => !FORCE_WORDS.has(w))) throw syntaxFault(p.fn, 2, Syntax.unrecognized, `force ${force.join(' ')}`);
  for (const key of ['max_total', 'max_quiesce']) {
    const v = p.str(key, 2).toUpperCase();
    if (v !== '' && v !== 'NOLIMIT' && !/^\d+$/.test(v)) throw syntaxFault(p.fn, 2, Syntax.notDecimal, `${key} ${v}`);
  }
  return { action, destination };
}

function requireMember(ctx: SimContext, fn: string, destination: string): void {
  const members = ctx.config.ssiMembers;
  if (members.length === 0) throw new SimFault(fn, 4, 3008, `${ctx.config.systemName} is not a member of an SSI cluster`);
  if (!members.includes(destination) || destination === ctx.config.systemName) {
    throw new SimFault(fn, 4, 3000, `${destination} is not another member of the SSI cluster`, { error_data: ['1940'] });
  }
}

export const relocateHandlers: Record<string, HandlerSpec> = {
  VMRELOCATE: spec((ctx, target, p) => {
    const req = readRequest(p);
    if (req.action === 'CANCEL') throw new SimFault(p.fn, 4, 3001, 'no relocation is in progress');
    if (req.destination === '') throw syntaxFault(p.fn, 2, Syntax.missing, 'destination is missing');
    requireRunning(ctx, p.fn, target);
    requireMember(ctx, p.fn, req.destination);
    if (req.action === 'MOVE') logoff(ctx, target, `USER ${target} RELOCATED TO ${req.destination}`);
  }, true),
};
