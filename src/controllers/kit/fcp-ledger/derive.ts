/**
 * The FCP ledger of a template as one pure function of what its writers declare (docs/architecture.md §7.6):
 * the usage the REST interface declared in the template's spec (reserve, release, set_fcp_usage), the
 * connections each ZVolume holds in its own status, and z/VM's view of the devices the template reconciler
 * read. Only the ZFcpTemplate reconciler writes the result; REST computes the same rows to decide a
 * reservation, then declares it under the template's resourceVersion.
 */
import type { FcpDeclaredUsage, FcpUsage, ZFcpTemplate, ZVolume } from '../../../api/index.js';

/** One connection a volume holds on one FCP of the template. */
export interface VolumeConnection {
  /** the volume's key, namespace/name */
  volume: string;
  assignerId: string;
  fcp: string;
}

const volumeKeyOf = (v: ZVolume) => `${v.metadata.namespace ?? ''}/${v.metadata.name}`;

/**
 * What a volume holds: status.connections; a volume attached before they were recorded (an earlier
 * release) holds the FCPs its status.fcps lists, on the template its spec names or any that lists them.
 */
function claimsOf(v: ZVolume): { fcp: string; template?: string }[] {
  if (v.status?.connections) return v.status.connections;
  if (v.status?.phase !== 'Attached' && v.status?.phase !== 'Failed') return [];
  return (v.status?.fcps ?? []).map((f) => ({ fcp: f.fcp, template: v.spec.fcpTemplateId }));
}

/** The connections the volumes hold on the template's FCPs, oldest volume first (the order they connect in). */
export function connectionsOn(volumes: readonly ZVolume[], t: ZFcpTemplate, fcps: ReadonlySet<string>): VolumeConnection[] {
  const ordered = [...volumes].sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || volumeKeyOf(a).localeCompare(volumeKeyOf(b)));
  return ordered.flatMap((v) => claimsOf(v)
    .filter((c) => (c.template === undefined || c.template === t.metadata.name) && fcps.has(c.fcp.toLowerCase()))
    .map((c) => ({ volume: volumeKeyOf(v), assignerId: v.spec.assignerId.toUpperCase(), fcp: c.fcp.toLowerCase() })));
}

const hasUsage = (r: FcpUsage) => r.assignerId !== '' || r.reserved !== 0 || r.connections > 0 || (r.volumes ?? []).length > 0;

/** The declared usage that reproduces these rows (what REST writes after computing a change on them). */
export function declaredFrom(rows: readonly FcpUsage[]): FcpDeclaredUsage[] {
  return rows.filter(hasUsage).map((r) => ({
    fcp: r.fcp, assignerId: r.assignerId, reserved: r.reserved, connections: r.connections,
    ...((r.volumes ?? []).length > 0 ? { volumes: [...r.volumes!] } : {}),
    ...(r.templateId ? { templateId: r.templateId } : {}),
  }));
}

/**
 * The template's declared usage. A template whose spec declares none yet may carry a ledger an earlier
 * release (or `migrate feilong`) kept in status: that ledger is the declaration until the reconciler adopts it.
 */
export function declaredUsageOf(t: ZFcpTemplate): FcpDeclaredUsage[] {
  return t.spec.fcpUsage ?? declaredFrom(t.status?.fcps ?? []);
}

/** z/VM's view of a row, without usage. */
function hostView(r: FcpUsage): FcpUsage {
  const { volumes: _v, templateId: _t, ...rest } = r;
  return { ...rest, assignerId: '', reserved: 0, connections: 0 };
}

/**
 * One row: the declared usage, minus the declared volumes that no longer connect, plus the volumes that
 * connected since (each reserves the FCP for its guest while it lasts), in that order.
 */
function deriveRow(row: FcpUsage, declared: FcpDeclaredUsage | undefined, connections: VolumeConnection[]): FcpUsage {
  const base = hostView(row);
  const counted = declared?.volumes ?? [];
  const now = new Set(connections.map((c) => c.volume));
  const kept = counted.filter((v) => now.has(v));
  // a volume keeps its place once the ledger showed it (the first one dedicates the FCP): the rows last derived give the order
  const shown = row.volumes ?? [];
  const place = (c: VolumeConnection) => (shown.includes(c.volume) ? shown.indexOf(c.volume) : shown.length);
  const fresh = connections.filter((c) => !counted.includes(c.volume)).map((c, i) => ({ c, i }))
    .sort((a, b) => place(a.c) - place(b.c) || a.i - b.i).map((x) => x.c);
  const volumes = [...kept, ...fresh.map((c) => c.volume)];
  const out: FcpUsage = {
    ...base,
    assignerId: fresh.at(-1)?.assignerId ?? declared?.assignerId ?? '',
    reserved: fresh.length > 0 ? 1 : declared?.reserved ?? 0,
    connections: Math.max(0, (declared?.connections ?? 0) - (counted.length - kept.length)) + fresh.length,
  };
  if (volumes.length > 0) out.volumes = volumes;
  if (declared?.templateId) out.templateId = declared.templateId;
  return out;
}

/** Every row of the ledger: `rows` (as last derived) gives the devices, z/VM's view and the volumes' order; the rest their usage. */
export function computeLedger(rows: readonly FcpUsage[], declared: readonly FcpDeclaredUsage[], connections: readonly VolumeConnection[]): FcpUsage[] {
  const byFcp = new Map(declared.map((d) => [d.fcp, d]));
  return rows.map((r) => deriveRow(r, byFcp.get(r.fcp), connections.filter((c) => c.fcp === r.fcp)));
}

/** The connections on the row before the volume's own (0: the volume's is the first, so it dedicates the FCP). */
export function connectionsBefore(row: FcpUsage, volume: string): number | undefined {
  const at = (row.volumes ?? []).indexOf(volume);
  if (at < 0) return undefined;
  return row.connections - ((row.volumes ?? []).length - at);
}
