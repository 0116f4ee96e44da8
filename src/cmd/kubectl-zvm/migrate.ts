/** migrate: a ZGuestAction LiveMigrate (what REST's live_migrate_vm creates), then its progress. */
import { API_VERSION, type ZGuestAction } from '../../api/index.js';
import { InvalidInputError } from '../../errors.js';
import { pluginOwned, requireGuest, writesOf } from './connect.js';
import { deletedWhileWaiting, showProgressWhile } from './follow.js';
import { connectedTo, type VerbOptions } from './run.js';

export interface MigrateOptions extends VerbOptions {
  to: string;
  test?: boolean;
  maxTotal?: string;
  maxQuiesce?: string;
}

function seconds(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidInputError(`${flag} ${value} is not a whole number of seconds`);
  return n;
}

export async function runMigrate(name: string, opts: MigrateOptions): Promise<void> {
  const maxTotal = seconds('--max-total', opts.maxTotal);
  const maxQuiesce = seconds('--max-quiesce', opts.maxQuiesce);
  if (!/^[A-Za-z0-9]{1,8}$/.test(opts.to)) throw new InvalidInputError(`--to ${opts.to} is not an SSI member name (1-8 letters and digits)`);
  await connectedTo(opts, async (b, out) => {
    await requireGuest(b, name);
    const action: ZGuestAction = {
      apiVersion: API_VERSION, kind: 'ZGuestAction',
      metadata: pluginOwned({ name: `${name}-migrate-${Date.now().toString(36)}`, namespace: b.namespace }),
      spec: {
        guest: name, action: 'LiveMigrate',
        liveMigrate: {
          destination: opts.to.toUpperCase(), operation: opts.test ? 'test' : 'move',
          parms: { ...(maxTotal !== undefined ? { maxTotal } : {}), ...(maxQuiesce !== undefined ? { maxQuiesce } : {}) },
        },
      },
    };
    const what = `zguestaction.zvm.dev/${action.metadata.name}`;
    if (!opts.wait) {
      await b.store.create(action);
      return out(`${what} created`);
    }
    const key = { namespace: b.namespace, name: action.metadata.name };
    // a failed action stays, like a failed Job: its status says why (as REST's live_migrate_vm leaves it)
    const done = await showProgressWhile({ feed: b.feed, kind: 'ZGuestAction', key, what, out }, () => writesOf(b, opts.timeoutMs).create(action, {
      what: `the migration of ${name}`, see: `kubectl get zguestaction ${action.metadata.name}`,
      ready: (a) => a.status?.phase === 'Succeeded', notFound: deletedWhileWaiting(what), undo: () => false,
    }));
    out(`zguest.zvm.dev/${name} ${opts.test ? `can move to ${opts.to.toUpperCase()}` : `moved to ${opts.to.toUpperCase()}`}${done.status?.message ? ` (${done.status.message})` : ''}`);
  });
}
