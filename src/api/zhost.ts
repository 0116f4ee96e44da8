import { Type, type Static } from '@sinclair/typebox';
import { CommonStatusFields, MemorySize, Patterns, Userid, Vdev, resourceSchema, type Resource } from './common.js';

export const ZHostSpec = Type.Object(
  {
    simulated: Type.Optional(Type.Boolean({ description: 'run the built-in simulated z/VM host' })),
    smapi: Type.Optional(
      Type.Object({
        host: Type.String({ minLength: 1 }),
        port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535, default: 44444 })),
        tls: Type.Optional(Type.Boolean({ description: 'SMAPI over TLS; without it the SMAPI password crosses the network in clear (condition TransportSecure=False)' })),
        tlsCaSecret: Type.Optional(Type.String({ description: 'Secret with key ca.crt: the CA bundle (PEM) that must have signed the SMAPI server certificate' })),
        tlsCertSha256: Type.Optional(Type.String({ pattern: '^(SHA256:)?[A-Za-z0-9+/:]{43,95}=?$', description: 'SHA-256 fingerprint of the SMAPI server certificate (hex, colon-separated hex or SHA256:base64); any other certificate is refused' })),
        credentialsSecret: Type.Optional(Type.String({ description: 'Secret with keys userid and password' })),
        concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
        timeoutSeconds: Type.Optional(Type.Integer({ minimum: 1 })),
      }),
    ),
    management: Type.Optional(
      Type.Object({
        host: Type.String({ minLength: 1 }),
        port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
        user: Type.Optional(Type.String()),
        keySecret: Type.Optional(Type.String({ description: 'Secret with privateKey or password, and optionally hostKeySha256 or knownHosts to pin the host key' })),
        hostKeys: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'accepted SSH host keys: SHA-256 fingerprints (SHA256:base64 or hex) or known_hosts lines; a connection presenting any other key is refused' })),
        trustOnFirstUse: Type.Optional(Type.Boolean({ description: 'with no host key configured, accept the first key seen, record it in status.managementHostKey and refuse any other later' })),
        repository: Type.Optional(Type.String({ pattern: '^/', description: 'image repository path on the management guest' })),
      }),
    ),
    defaults: Type.Optional(
      Type.Object({
        diskPool: Type.Optional(Type.String({ pattern: Patterns.diskPool })),
        rootVdev: Type.Optional(Vdev),
        maxCpus: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
        maxMemory: Type.Optional(MemorySize),
        profile: Type.Optional(Userid),
      }),
    ),
    resyncSeconds: Type.Optional(Type.Integer({ minimum: 5, description: 'how often host facts (version, CPUs, memory, guest count) are read again; default one day' })),
  },
  { additionalProperties: false },
);
export type ZHostSpec = Static<typeof ZHostSpec>;

export const ZHostStatus = Type.Object({
  ...CommonStatusFields,
  hypervisorVersion: Type.Optional(Type.String()),
  hostname: Type.Optional(Type.String()),
  guestCount: Type.Optional(Type.Integer()),
  smapiHealthy: Type.Optional(Type.Boolean()),
  factsRefreshedAt: Type.Optional(Type.String({ description: 'when host facts were last read from the host' })),
  info: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  managementHostKey: Type.Optional(Type.String({ description: 'SHA-256 fingerprint of the management guest host key accepted on first use (trustOnFirstUse); later keys must match it' })),
});
export type ZHostStatus = Static<typeof ZHostStatus>;

export const ZHostSchema = resourceSchema('ZHost', ZHostSpec, ZHostStatus);
export type ZHost = Resource<ZHostSpec, ZHostStatus>;
