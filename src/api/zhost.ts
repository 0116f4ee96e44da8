import { Type, type Static } from '@sinclair/typebox';
import { CommonStatusFields, MemorySize, Patterns, Userid, Vdev, described, resourceSchema, type Resource } from './common.js';

export const ZHostSpec = Type.Object(
  {
    simulated: Type.Optional(Type.Boolean({ description: 'run the built-in simulated z/VM host' })),
    smapi: Type.Optional(
      Type.Object(
        {
          host: Type.String({ minLength: 1, description: 'address of the SMAPI server' }),
          port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, default: 44444, description: 'SMAPI TCP port' })),
          tls: Type.Optional(Type.Boolean({ description: 'talk to SMAPI over TLS' })),
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
        keySecret: Type.Optional(Type.String({ description: 'Secret with privateKey or password, and optionally hostKeySha256 to pin the host key' })),
        repository: Type.Optional(Type.String({ pattern: '^/', description: 'image repository path on the management guest' })),
      }, { description: 'the Linux management guest that moves disk images (SSH)' }),
    ),
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
}, { description: 'what the controller last read from the host' });
export type ZHostStatus = Static<typeof ZHostStatus>;

export const ZHostSchema = resourceSchema('ZHost', ZHostSpec, ZHostStatus);
export type ZHost = Resource<ZHostSpec, ZHostStatus>;
