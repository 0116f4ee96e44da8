import { CloneType, Type, type Static } from '@sinclair/typebox';
import { CommonStatusFields, resourceSchema, type Resource } from './common.js';
import type { CrossFieldRule } from './kinds.js';
import { ZGuestSpec } from './zguest.js';
import { fixed, live, type LifecycleTable } from './lifecycle.js';

/** z/VM userids are at most 8 characters: the prefix leaves at least 2 for the counter; letters and digits keep guest names valid. */
export const USERID_PREFIX_PATTERN = '^[A-Za-z][A-Za-z0-9]{0,5}$';

const templateSpec = CloneType(Type.Omit(ZGuestSpec, ['userid', 'host']), {
  description: 'the ZGuest spec of every guest of the pool, without userid and host (the pool allocates them)',
});

export const ZGuestPoolSpec = Type.Object(
  {
    replicas: Type.Integer({ minimum: 0, maximum: 1000, default: 1, description: 'guests wanted' }),
    useridPrefix: Type.String({ pattern: USERID_PREFIX_PATTERN, description: 'userids are this prefix plus a counter filling 8 characters (WEB → WEB00001); a counter value is never used twice' }),
    hosts: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { minItems: 1, maxItems: 64, uniqueItems: true, description: 'ZHosts the guests are spread over, fewest guests first, each only while it has room (README "Guest pools"); default the host named default' })),
    hostSelector: Type.Optional(Type.Object(
      { matchLabels: Type.Record(Type.String(), Type.String(), { description: 'labels a ZHost must carry' }) },
      { additionalProperties: false, description: 'instead of hosts: the ZHosts carrying these labels, in name order' },
    )),
    template: Type.Object(
      {
        metadata: Type.Optional(
          Type.Object(
            { labels: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'labels of every guest' })) },
            { additionalProperties: false, description: 'labels every guest carries' },
          ),
        ),
        spec: templateSpec,
      },
      { additionalProperties: false, description: 'what each guest is: a class, an image, NICs and any ZGuest field' },
    ),
    maxUnavailable: Type.Optional(Type.Integer({ minimum: 0, default: 1, description: 'during a rollout, how many fewer Ready guests than replicas are allowed' })),
    maxSurge: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'during a rollout, how many guests above replicas may exist' })),
    progressDeadlineSeconds: Type.Optional(Type.Integer({ minimum: 1, default: 600, description: 'during a rollout, a new guest not Ready this long after its creation stops the rollout like a failed one' })),
    paused: Type.Optional(Type.Boolean({ description: 'hold the pool: no guest is created or deleted until it is false again' })),
  },
  { additionalProperties: false, description: 'N identical guests from one template, scaled by replicas and rolled one batch at a time' },
);
export type ZGuestPoolSpec = Static<typeof ZGuestPoolSpec>;

export const ZGUEST_POOL_RULES: CrossFieldRule<ZGuestPoolSpec>[] = [
  {
    path: '/spec/template/spec',
    message: 'the template needs vcpus and memory unless it names a class',
    cel: 'has(self.template.spec.class) || (has(self.template.spec.vcpus) && has(self.template.spec.memory))',
    holds: (s) => s.template.spec.class !== undefined || (s.template.spec.vcpus !== undefined && s.template.spec.memory !== undefined),
  },
  {
    path: '/spec/hostSelector',
    message: 'give hosts or hostSelector, not both',
    cel: '!has(self.hosts) || !has(self.hostSelector)',
    holds: (s) => s.hosts === undefined || s.hostSelector === undefined,
  },
  {
    path: '/spec',
    message: 'maxUnavailable and maxSurge cannot both be 0',
    cel: '!has(self.maxUnavailable) || self.maxUnavailable > 0 || (has(self.maxSurge) && self.maxSurge > 0)',
    holds: (s) => s.maxUnavailable === undefined || s.maxUnavailable > 0 || (s.maxSurge ?? 0) > 0,
  },
];

export const ZGuestPoolStatus = Type.Object(
  {
    ...CommonStatusFields,
    replicas: Type.Optional(Type.Integer({ description: 'guests of the pool (not being deleted)' })),
    readyReplicas: Type.Optional(Type.Integer({ description: 'guests whose Ready condition is True' })),
    updatedReplicas: Type.Optional(Type.Integer({ description: 'guests made from the current template' })),
    selector: Type.Optional(Type.String({ description: 'label selector of the pool\'s guests (for the scale subresource)' })),
    templateHash: Type.Optional(Type.String({ description: 'hash of the current template; each guest carries the one it was made from' })),
    lastIndex: Type.Optional(Type.Integer({ description: 'the last userid counter value handed out; written before the guest is created, so no value is used twice' })),
    classRevision: Type.Optional(Type.Integer({ description: 'the class revision new guests take, recorded when the pool first saw its class' })),
  },
  { description: 'counts of the pool\'s guests and the rollout' },
);
export type ZGuestPoolStatus = Static<typeof ZGuestPoolStatus>;

export const ZGuestPoolSchema = resourceSchema('ZGuestPool', ZGuestPoolSpec, ZGuestPoolStatus);
export type ZGuestPool = Resource<ZGuestPoolSpec, ZGuestPoolStatus>;

/** Labels on every pool guest: which pool, and which template it was made from. */
export const POOL_LABEL = 'zvm.dev/pool';
export const TEMPLATE_HASH_LABEL = 'zvm.dev/pool-template-hash';
/** The userid counter value of a pool guest. */
export const POOL_INDEX_ANNOTATION = 'zvm.dev/pool-index';
export const POOL_FINALIZER = 'zvm.dev/pool-protection';

/** ZGuestPool: the pool converges on every field; the userid prefix keeps the counter's promise (docs/fields.md). */
export const ZGUEST_POOL_FIELDS: LifecycleTable = {
  replicas: live('guests are created or deleted to match'),
  useridPrefix: fixed('the counter restarts nowhere: a new prefix would let two pools share userids'),
  hosts: live('new guests are placed on these hosts; existing guests stay where they are'),
  hostSelector: live('new guests are placed on the hosts it selects; existing guests stay where they are', true),
  template: live('a new template hash: guests are replaced batch by batch (maxUnavailable, maxSurge)', true),
  maxUnavailable: live('read by the next rollout step'),
  maxSurge: live('read by the next rollout step'),
  progressDeadlineSeconds: live('read by the next rollout step'),
  paused: live('read by every pool reconcile'),
};
