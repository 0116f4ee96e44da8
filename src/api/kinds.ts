import type { TObject } from '@sinclair/typebox';
import { ZGuestSpec, ZGuestStatus } from './zguest.js';
import { ZHostSpec, ZHostStatus } from './zhost.js';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'date' | 'boolean';
  jsonPath: string;
  priority?: number;
}

/** Everything the store, validators and CRD generator need to know about one kind. */
export interface KindDefinition {
  kind: string;
  plural: string;
  singular: string;
  scope: 'Namespaced' | 'Cluster';
  shortNames: string[];
  spec: TObject;
  status: TObject;
  printerColumns: PrinterColumn[];
  /** spec fields that cannot change after creation */
  immutableSpec?: string[];
}

const age: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
const ready: PrinterColumn = { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' };

export const KINDS: Record<string, KindDefinition> = {
  ZHost: {
    kind: 'ZHost',
    plural: 'zhosts',
    singular: 'zhost',
    scope: 'Cluster',
    shortNames: ['zh'],
    spec: ZHostSpec,
    status: ZHostStatus,
    printerColumns: [
      { name: 'Simulated', type: 'boolean', jsonPath: '.spec.simulated' },
      { name: 'Version', type: 'string', jsonPath: '.status.hypervisorVersion' },
      { name: 'Guests', type: 'integer', jsonPath: '.status.guestCount' },
      ready,
      age,
    ],
  },
  ZGuest: {
    kind: 'ZGuest',
    plural: 'zguests',
    singular: 'zguest',
    scope: 'Namespaced',
    shortNames: ['zg'],
    spec: ZGuestSpec,
    status: ZGuestStatus,
    // changing them would leave the old z/VM guest behind
    immutableSpec: ['userid', 'host'],
    printerColumns: [
      { name: 'Userid', type: 'string', jsonPath: '.spec.userid' },
      { name: 'Host', type: 'string', jsonPath: '.status.host' },
      { name: 'Power', type: 'string', jsonPath: '.status.powerState' },
      { name: 'CPUs', type: 'integer', jsonPath: '.spec.vcpus' },
      { name: 'Memory', type: 'string', jsonPath: '.spec.memory' },
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      ready,
      age,
    ],
  },
};

export type KindName = keyof typeof KINDS;

export function kindDefinition(kind: string): KindDefinition {
  const def = KINDS[kind];
  if (!def) throw new Error(`unknown kind ${kind}`);
  return def;
}

/** Accepts what kubectl accepts: the kind, its plural, singular or a short name, any case. */
export function resolveKind(name: string): KindDefinition | undefined {
  const n = name.toLowerCase();
  return Object.values(KINDS).find((d) => d.kind.toLowerCase() === n || d.plural === n || d.singular === n || d.shortNames.includes(n));
}
