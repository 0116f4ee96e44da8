/**
 * `zvm-operator describe KIND NAME` as kubectl lays it out: identity and metadata, spec and status,
 * the conditions as a table, then the object's recent Events (from the standalone admin API): its own
 * only, not those of a deleted earlier object that had the same name (another uid).
 * Pure: the client fetches the object and its events.
 */
import { stringify } from 'yaml';
import type { Condition, Resource } from '../api/index.js';
import type { RecordedEvent } from '../runtime/memory-event-recorder.js';
import { formatRows } from './client-output.js';
import { formatAge } from './duration.js';

export function describe(obj: Resource, events: RecordedEvent[], now = new Date()): string {
  const { conditions, ...status } = (obj.status ?? {}) as { conditions?: Condition[] } & Record<string, unknown>;
  const age = (iso: string | undefined) => (iso ? formatAge(now.getTime() - Date.parse(iso)) : '');
  const lines = [
    ...fields([
      ['Name', obj.metadata.name],
      ...(obj.metadata.namespace ? [['Namespace', obj.metadata.namespace] as [string, string]] : []),
      ['Kind', obj.kind],
      ['API Version', obj.apiVersion],
      ['Labels', pairs(obj.metadata.labels)],
      ['Annotations', pairs(obj.metadata.annotations)],
      ['Created', obj.metadata.creationTimestamp ? `${obj.metadata.creationTimestamp} (${age(obj.metadata.creationTimestamp)} ago)` : '<unknown>'],
      ...(obj.metadata.deletionTimestamp ? [['Deleting since', obj.metadata.deletionTimestamp] as [string, string]] : []),
      ['Generation', String(obj.metadata.generation ?? '')],
    ]),
    'Spec:',
    ...block(obj.spec),
    'Status:',
    ...block(status),
    'Conditions:',
    ...table(['Type', 'Status', 'Reason', 'Age', 'Message'], (conditions ?? []).map((c) => [c.type, c.status, c.reason ?? '', age(c.lastTransitionTime), c.message ?? ''])),
    'Events:',
    ...table(['Type', 'Reason', 'Age', 'Message'], ownEvents(obj, events).map((e) => [e.type, e.reason, eventAge(e, age), e.message])),
  ];
  return `${lines.join('\n')}\n`;
}

/** Events are looked up by name; an event recorded for another uid belongs to an earlier object of that name. */
export function ownEvents(obj: Resource, events: RecordedEvent[]): RecordedEvent[] {
  const uid = obj.metadata.uid;
  return uid ? events.filter((e) => e.involvedObject.uid === uid) : events;
}

/** "5s", or "5s (x3 over 2m)" for a repeated event, like kubectl. */
function eventAge(e: RecordedEvent, age: (iso: string) => string): string {
  return e.count > 1 ? `${age(e.lastTimestamp)} (x${e.count} over ${age(e.firstTimestamp)})` : age(e.lastTimestamp);
}

function fields(rows: [string, string][]): string[] {
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  return rows.map(([k, v]) => `${`${k}:`.padEnd(width)}${v.replace(/\n/g, `\n${' '.repeat(width)}`)}`.trimEnd());
}

function pairs(map: Record<string, string> | undefined): string {
  const entries = Object.entries(map ?? {});
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join('\n') : '<none>';
}

function block(value: unknown): string[] {
  const empty = value === undefined || value === null || (typeof value === 'object' && Object.keys(value).length === 0);
  return empty ? ['  <none>'] : stringify(value).trimEnd().split('\n').map((l) => `  ${l}`);
}

function table(header: string[], rows: string[][]): string[] {
  if (rows.length === 0) return ['  <none>'];
  return formatRows([header, header.map((h) => '-'.repeat(h.length)), ...rows]).map((l) => `  ${l}`);
}
