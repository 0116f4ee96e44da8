import type { FcpUsage, ZFcpTemplate } from '../../../api/index.js';
import { ConflictError, NotFoundError } from '../../../errors.js';
import type { StateStore } from '../../../store/port.js';

const KIND = 'ZFcpTemplate';
/** Optimistic retries of one ledger change; each round re-reads the template. */
const MAX_ATTEMPTS = 20;

/**
 * Read-modify-write of a template's ledger under its resourceVersion: concurrent writers (the
 * template controller, the volume controller, the REST sidecar) never lose each other's changes.
 * `change` returns the new rows and a value, or undefined rows for "nothing to write".
 */
export async function updateLedger<R>(
  store: StateStore,
  templateId: string,
  change: (rows: FcpUsage[], template: ZFcpTemplate) => { rows?: FcpUsage[]; value: R },
): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    const template = await store.get<ZFcpTemplate>(KIND, { name: templateId });
    if (!template) throw new NotFoundError(`FCP Multipath Template ${templateId} does not exist.`);
    const { rows, value } = change(template.status?.fcps ?? [], template);
    if (!rows) return value;
    try {
      await store.updateStatus<ZFcpTemplate>({ ...template, status: { ...template.status, fcps: rows } });
      return value;
    } catch (err) {
      if (!(err instanceof ConflictError) || attempt >= MAX_ATTEMPTS) throw err;
    }
  }
}

/** The template whose ledger lists the FCP: `preferred` first, then any. */
export async function findTemplateOf(store: StateStore, fcp: string, preferred?: string): Promise<ZFcpTemplate | undefined> {
  const { items } = await store.list<ZFcpTemplate>(KIND);
  const has = (t: ZFcpTemplate) => (t.status?.fcps ?? []).some((r) => r.fcp === fcp);
  return items.find((t) => t.metadata.name === preferred && has(t)) ?? items.find(has);
}
