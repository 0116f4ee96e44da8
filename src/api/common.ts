import { CloneType, Type, type Static, type TSchema } from '@sinclair/typebox';

export const GROUP = 'zvm.dev';
/**
 * The version everything we write speaks (operator, REST, CLI, plugin, chart, examples) and the one the
 * apiserver stores. Objects stored as v1alpha1 by release 0.1.0 move to it with the storage migration
 * (docs/user-guide/upgrade.md).
 */
export const VERSION = 'v1beta1';
export const STORAGE_VERSION = VERSION;
/** Still served and accepted everywhere (standalone too), with a deprecation warning naming VERSION. */
export const DEPRECATED_VERSION = 'v1alpha1';
/**
 * The versions the CRDs serve, the stored one first. Their schemas are identical, so the apiserver
 * converts by relabelling (conversion strategy None).
 */
export const SERVED_VERSIONS = [VERSION, DEPRECATED_VERSION] as const;

/**
 * What a request naming DEPRECATED_VERSION is told: the CRD's deprecationWarning (the apiserver sends it
 * as a `Warning: 299 - "…"` header and kubectl prints it), and standalone's admin API sends the same.
 */
export function deprecationWarning(kind: string): string {
  return `${GROUP}/${DEPRECATED_VERSION} ${kind} is deprecated; use ${GROUP}/${VERSION} ${kind}`;
}

/** Two apiVersions of the same group name the same object (served versions share one schema). */
export const sameGroup = (a: string, b: string): boolean => a.split('/')[0] === b.split('/')[0];
export const API_VERSION = `${GROUP}/${VERSION}`;

/** z/VM rules shared by several kinds (docs/smapi.md §5.4, docs/rest-interface.md §1.5). */
export const Patterns = {
  userid: '^[A-Za-z0-9@#$_-]{1,8}$',
  vdev: '^[0-9A-Fa-f]{1,4}$',
  memory: '^[1-9][0-9]{0,3}[MmGg]$',
  diskSize: '^([1-9][0-9]*[MmGg]|[1-9][0-9]*)$',
  diskPool: '^(ECKD|FBA|eckd|fba):[A-Za-z0-9_$#@]{1,8}$',
  mac: '^([0-9A-Fa-f]{2})(:[0-9A-Fa-f]{2}){5}$',
  hex16: '^[0-9A-Fa-f]{1,16}$',
} as const;

/** The shared schema with a description that says what this field is for (`kubectl explain` shows it). */
export function described<T extends TSchema>(schema: T, description: string): T {
  // CloneType's options do not override the schema's own keywords: set it on the copy
  return Object.assign(CloneType(schema), { description });
}

export const Userid = Type.String({ pattern: Patterns.userid, minLength: 1, maxLength: 8, description: 'z/VM userid, 1-8 characters' });
/**
 * Marks a string that YAML turns into a number when unquoted (device numbers: `vdev: 1000` is an
 * integer, `0100` the octal 64 to YAML 1.1): the CRD accepts both shapes and refuses the number with
 * a CEL message that says to quote it, and the validators say the same.
 */
export const DEVICE_NUMBER = 'x-zvm-device-number';
export const QUOTE_DEVICE_NUMBER = 'a device number is text: quote it, e.g. "0100"';

export const Vdev = Type.String({ pattern: Patterns.vdev, description: 'virtual device number, 1-4 hex digits', [DEVICE_NUMBER]: true });
export const MemorySize = Type.String({ pattern: Patterns.memory, description: '1-4 digits with suffix M or G, e.g. 512M or 4G' });

/** Standard Kubernetes condition (metav1.Condition). */
export const Condition = Type.Object({
  type: Type.String({ description: 'condition type, e.g. Ready' }),
  status: Type.Union([Type.Literal('True'), Type.Literal('False'), Type.Literal('Unknown')], { description: 'True, False or Unknown' }),
  reason: Type.String({ description: 'one CamelCase word for the cause of the last transition' }),
  message: Type.String({ description: 'what happened, in words' }),
  lastTransitionTime: Type.String({ description: 'when status last changed (RFC 3339)' }),
  observedGeneration: Type.Optional(Type.Integer({ description: 'the metadata.generation this condition was computed from' })),
});
export type Condition = Static<typeof Condition>;

/** The last hypervisor failure, as feilong's envelope carries it. */
export const HvError = Type.Object(
  {
    overallRC: Type.Integer({ description: 'feilong overall return code (0 success, 300 not found, 400 bad input, ...)' }),
    rc: Type.Integer({ description: 'SMAPI return code' }),
    rs: Type.Integer({ description: 'SMAPI reason code' }),
    modID: Type.Integer({ description: 'feilong module that failed (e.g. 10 guest, 20 network)' }),
    errmsg: Type.String({ description: 'error message' }),
  },
  { description: 'the last hypervisor failure, as feilong reports it' },
);
export type HvError = Static<typeof HvError>;

/** Fields present in the status of every kind. */
export const CommonStatusFields = {
  observedGeneration: Type.Optional(Type.Integer({ description: 'the metadata.generation the controller last acted on' })),
  conditions: Type.Optional(Type.Array(Condition, { description: 'Ready and the other conditions of this resource' })),
  phase: Type.Optional(Type.String({ description: 'one word for where the resource stands in its lifecycle' })),
  lastError: Type.Optional(HvError),
};

/** metav1.OwnerReference: the owner's deletion takes this object along (a pool's guests). */
export const OwnerReference = Type.Object({
  apiVersion: Type.String(),
  kind: Type.String(),
  name: Type.String(),
  uid: Type.String(),
  controller: Type.Optional(Type.Boolean()),
  blockOwnerDeletion: Type.Optional(Type.Boolean()),
});
export type OwnerReference = Static<typeof OwnerReference>;

export const ObjectMeta = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 253 }),
    namespace: Type.Optional(Type.String()),
    uid: Type.Optional(Type.String()),
    resourceVersion: Type.Optional(Type.String()),
    generation: Type.Optional(Type.Integer()),
    creationTimestamp: Type.Optional(Type.String()),
    deletionTimestamp: Type.Optional(Type.String()),
    finalizers: Type.Optional(Type.Array(Type.String())),
    labels: Type.Optional(Type.Record(Type.String(), Type.String())),
    annotations: Type.Optional(Type.Record(Type.String(), Type.String())),
    ownerReferences: Type.Optional(Type.Array(OwnerReference)),
  },
  { additionalProperties: true },
);
export type ObjectMeta = Static<typeof ObjectMeta>;

/** Wraps a spec and status schema into a whole resource schema. */
export function resourceSchema<S extends TSchema, T extends TSchema>(kind: string, spec: S, status: T, apiVersion: string = API_VERSION) {
  return Type.Object({
    // our kinds: any version the CRDs serve, one schema for all of them (SERVED_VERSIONS); an enum, so a
    // wrong value is one issue naming them all (a union of literals is one issue per literal)
    apiVersion: apiVersion === API_VERSION ? Type.Unsafe<string>({ type: 'string', enum: SERVED_VERSIONS.map((v) => `${GROUP}/${v}`) }) : Type.Literal(apiVersion),
    kind: Type.Literal(kind),
    metadata: ObjectMeta,
    spec,
    status: Type.Optional(status),
  });
}

/** What every stored object looks like, whatever its kind. */
export interface Resource<Spec = unknown, Status = unknown> {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec: Spec;
  status?: Status;
}
