import { expandFcpDevices, type FcpUsage, type ZFcpTemplate, type ZVolume } from '../../../api/index.js';
import type { StateStore } from '../../../store/port.js';
import { computeLedger, connectionsOn, declaredUsageOf } from './derive.js';

const KIND = 'ZFcpTemplate';

/**
 * The template's ledger as its reconciler derives it now: z/VM's view from the rows it last wrote, the
 * usage from the template's spec and every volume's connections (none of them waits for the reconciler).
 */
export async function readLedger(store: StateStore, t: ZFcpTemplate): Promise<FcpUsage[]> {
  const rows = t.status?.fcps ?? [];
  const { items } = await store.list<ZVolume>('ZVolume');
  const fcps = new Set([...rows.map((r) => r.fcp), ...expandFcpDevices(t.spec.fcpDevices ?? '').flat()]);
  return computeLedger(rows, declaredUsageOf(t), connectionsOn(items, t, fcps));
}

/** The template whose ledger lists the FCP: `preferred` first, then any. */
export async function findTemplateOf(store: StateStore, fcp: string, preferred?: string): Promise<ZFcpTemplate | undefined> {
  const { items } = await store.list<ZFcpTemplate>(KIND);
  const has = (t: ZFcpTemplate) => (t.status?.fcps ?? []).some((r) => r.fcp === fcp);
  return items.find((t) => t.metadata.name === preferred && has(t)) ?? items.find(has);
}
