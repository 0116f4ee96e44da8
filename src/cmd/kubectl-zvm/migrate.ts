/** migrate: a ZGuestAction LiveMigrate (what REST's live_migrate_vm creates), then its progress. */
import { API_VERSION, type ZGuestAction } from '../../api/index.js';
import { InvalidInputError } from '../../errors.js';
import { pluginOwned, requireGuest } from './connect.js';
import { failedPhase, followResource } from './follow.js';
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
    const created = await b.store.create(action);
    const what = `zguestaction.zvm.dev/${created.metadata.name}`;
    out(`${what} created`);
    if (!opts.wait) return;
    const done = await followResource<ZGuestAction>({
      store: b.store, kind: 'ZGuestAction', key: { namespace: b.namespace, name: created.metadata.name }, timeoutMs: opts.timeoutMs, out, what,
      finished: (a) => a.status?.phase === 'Succeeded',
      failure: (a) => failedPhase(a.status),
    });
    out(`zguest.zvm.dev/${name} ${opts.test ? `can move to ${opts.to.toUpperCase()}` : `moved to ${opts.to.toUpperCase()}`}${done.status?.message ? ` (${done.status.message})` : ''}`);
  });
}
