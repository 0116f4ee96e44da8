import { Type, type Static } from '@sinclair/typebox';
import { CommonStatusFields, MemorySize, Patterns, Userid, Vdev, described, resourceSchema, type Resource } from './common.js';
import { fixed, live, type LifecycleTable } from './lifecycle.js';

export const ZHostSpec = Type.Object(
  {
    simulated: Type.Optional(Type.Boolean({ description: 'run the built-in simulated z/VM host' })),
    smapi: Type.Optional(
      Type.Object(
        {
          host: Type.String({ minLength: 1, description: 'address of the SMAPI server' }),
          port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, default: 44444, description: 'SMAPI TCP port' })),
          tls: Type.Optional(Type.Boolean({ description: 'SMAPI over TLS; without it the SMAPI password crosses the network in clear (condition TransportSecure=False)' })),
          tlsCaSecret: Type.Optional(Type.String({ description: 'Secret with key ca.crt: the CA bundle (PEM) that must have signed the SMAPI server certificate' })),
          tlsCertSha256: Type.Optional(Type.String({ pattern: '^(SHA256:)?[A-Za-z0-9+/:]{43,95}=?$', description: 'SHA-256 fingerprint of the SMAPI server certificate (hex, colon-separated hex or SHA256:base64); any other certificate is refused' })),
          credentialsSecret: Type.Optional(Type.String({ description: 'Secret with keys userid and password' })),
          concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, description: 'most SMAPI calls in flight at once' })),
          timeoutSeconds: Type.Optional(Type.Integer({ minimum: 1, description: 'how long one SMAPI call may take' })),
        },
        { description: 'the SMAPI server of a real z/VM host' },
      ),
    ),
    management: Type.Optional(
      Type.Object({
        host: Type.String({ minLength: 1, description: 'address of the management guest (SSH)' }),
        port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, description: 'SSH port; default 22' })),
        user: Type.Optional(Type.String({ description: 'SSH user' })),
        keySecret: Type.Optional(Type.String({ description: 'Secret with privateKey or password, and optionally hostKeySha256 or knownHosts to pin the host key' })),
        hostKeys: Type.Optional(Type.Array(Type.String({ minLength: 1, description: 'a SHA-256 fingerprint or a known_hosts line' }), { description: 'accepted SSH host keys: SHA-256 fingerprints (SHA256:base64 or hex) or known_hosts lines; a connection presenting any other key is refused' })),
        trustOnFirstUse: Type.Optional(Type.Boolean({ description: 'with no host key configured, accept the first key seen, record it in status.managementHostKey and refuse any other later' })),
        repository: Type.Optional(Type.String({ pattern: '^/', description: 'image repository path on the management guest' })),
        imageDirs: Type.Optional(Type.Array(Type.String({ pattern: '^/' }), {
          description: "operator-side directories this host's file:// image imports and exports may use; each must lie inside one of the operator's --image-dir directories (default: all of them)",
        })),
      }, { description: 'the Linux management guest that moves disk images (SSH)' }),
    ),
    changePolicy: Type.Optional(Type.Union([Type.Literal('Auto'), Type.Literal('Approve')], {
      description: "Approve: a guest's host changes (drift repair and deletion too) wait in its status.pendingPlan until annotation zvm.dev/approved-plan names the plan's hash; Auto (default): applied at once",
    })),
    defaults: Type.Optional(
      Type.Object({
        diskPool: Type.Optional(Type.String({ pattern: Patterns.diskPool, description: 'disk pool of disks without a pool: ECKD:<name> or FBA:<name>' })),
        rootVdev: Type.Optional(described(Vdev, 'device number of the root disk, 1-4 hex digits')),
        maxCpus: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, description: 'maxCpus of guests that set none' })),
        maxMemory: Type.Optional(described(MemorySize, 'maxMemory of guests that set none, e.g. 64G')),
        profile: Type.Optional(described(Userid, 'directory profile of guests that set none')),
      }, { description: 'values guests on this host get when their spec leaves them out' }),
    ),
    resyncSeconds: Type.Optional(Type.Integer({ minimum: 5, description: 'how often host facts (version, CPUs, memory, guest count) are read again; default one day' })),
    // orphan sweeper (issue 12): guests with our owner mark whose ZGuest no longer exists
    orphanPolicy: Type.Optional(Type.Union([Type.Literal('Report'), Type.Literal('Delete')], {
      default: 'Report', description: 'what to do with a guest that carries the operator\'s owner mark but whose ZGuest no longer exists: Report (Event, metric, status) or Delete it with its disks after orphanGracePeriodSeconds',
    })),
    orphanGracePeriodSeconds: Type.Optional(Type.Integer({ minimum: 0, default: 3600, description: 'how long an orphaned guest is reported before orphanPolicy Delete deletes it' })),
  },
  { additionalProperties: false, description: 'how to reach one z/VM host (SMAPI and management guest), or a simulated one' },
);
export type ZHostSpec = Static<typeof ZHostSpec>;

export const ZHostStatus = Type.Object({
  ...CommonStatusFields,
  hypervisorVersion: Type.Optional(Type.String({ description: 'z/VM version the host reports' })),
  hostname: Type.Optional(Type.String({ description: 'system name of the host' })),
  guestCount: Type.Optional(Type.Integer({ description: 'guests defined in the directory, as of factsRefreshedAt' })),
  activeGuests: Type.Optional(Type.Integer({ description: 'guests logged on, from the batched power query of every drift period' })),
  simulated: Type.Optional(Type.Boolean({ description: 'the built-in simulator serves this host' })),
  endpoint: Type.Optional(Type.String({ description: 'where the operator reaches the host: smapi://host:port, smapi+tls://host:port or the built-in simulator' })),
  smapiHealthy: Type.Optional(Type.Boolean({ description: 'SMAPI answered the last call' })),
  factsRefreshedAt: Type.Optional(Type.String({ description: 'when host facts were last read from the host' })),
  info: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'host facts as GET /host shows them (CPUs, memory, disk pools, ...)' })),
  heldBy: Type.Optional(Type.String({ description: 'the controller replica holding this host\'s Lease (sharding)' })),
  managementHostKey: Type.Optional(Type.String({ description: 'SHA-256 fingerprint of the management guest host key accepted on first use (trustOnFirstUse); later keys must match it' })),
  // orphan sweeper (issue 12)
  orphanedGuests: Type.Optional(Type.Array(Type.Object({
    userid: Type.String({ description: 'the orphaned guest' }),
    ownerUid: Type.String({ description: 'the uid the owner mark names; no ZGuest has it' }),
    since: Type.String({ description: 'when the guest was first found orphaned; the grace period runs from here' }),
  }), { description: 'guests on this host that carry the operator\'s owner mark but whose ZGuest no longer exists' })),
}, { description: 'what the controller last read from the host' });
export type ZHostStatus = Static<typeof ZHostStatus>;

/** Holds a ZHost's deletion while resources still name its host (controllers/zhost/deletion.ts). */
export const HOST_FINALIZER = 'zvm.dev/host-protection';

export const ZHostSchema = resourceSchema('ZHost', ZHostSpec, ZHostStatus);
export type ZHost = Resource<ZHostSpec, ZHostStatus>;

/**
 * ZHost condition the ZHost reconciler writes from the outage tracker's fact: False (reason HostUnreachable) once the host's SMAPI
 * has not answered for longer than the outage grace, True again when it answers (README "When a host
 * is unreachable"). The REST sidecar reads it to refuse writes at once rather than wait.
 */
export const SMAPI_REACHABLE = 'SmapiReachable';
export const HOST_UNREACHABLE = 'HostUnreachable';

/** When the host's SMAPI was last seen answering before an outage, or undefined while it is reachable. */
export function unreachableSince(host: Pick<ZHost, 'status'> | undefined): string | undefined {
  const c = host?.status?.conditions?.find((x) => x.type === SMAPI_REACHABLE);
  return c?.status === 'False' ? c.lastTransitionTime : undefined;
}

/** ZHost: what a change does (docs/fields.md). A changed connection is made again; the next call uses it. */
export const ZHOST_FIELDS: LifecycleTable = {
  simulated: fixed('a simulated host is another host than a real one: its guests would be lost from view'),
  smapi: live('the SMAPI connection is made again with the new settings (credentials, TLS, limits); standalone\'s built-in host is its own simulator and refuses it', true),
  management: live('the management guest connection is made again with the new settings; standalone\'s built-in host refuses it', true),
  changePolicy: live('read before each guest change'),
  defaults: live('read by every guest reconcile: guests that leave the field out take the new value as their own field would change (docs/fields.md, ZGuest)', true),
  resyncSeconds: live('the next host fact refresh is planned with it'),
  orphanPolicy: live('read by every orphan sweep'),
  orphanGracePeriodSeconds: live('read by every orphan sweep'),
};
