/**
 * Which SSH host keys a ZHost's management guest may present (mandatory verification, see
 * hypervisor/mgmt/host-key.ts): spec.management.hostKeys, the key Secret's hostKeySha256 and
 * knownHosts, the operator's --ssh-known-hosts file, and the key recorded on first use in status.
 * Also how a ZHost's SMAPI TLS server is authenticated: a CA bundle Secret and/or a pinned certificate.
 */
import { readFile } from 'node:fs/promises';
import type { ZHost } from '../api/index.js';
import { InvalidSpecError } from '../errors.js';
import type { HostKeyPolicy, SmapiClientOptions } from '../hypervisor/index.js';

/** The operator-wide known_hosts file, re-read on each host build so that edits apply on the next connect. */
export async function readKnownHostsFile(path: string | undefined): Promise<string[]> {
  if (!path) return [];
  try {
    return [await readFile(path, 'utf8')];
  } catch (err) {
    throw new InvalidSpecError(`cannot read the SSH known_hosts file ${path}: ${(err as Error).message}`, [], { cause: err });
  }
}

export function managementHostKeyPolicy(host: ZHost, secret: Record<string, string>, knownHosts: string[]): HostKeyPolicy {
  const m = host.spec.management;
  const trusted = [...(m?.hostKeys ?? []), ...[secret.hostKeySha256, secret.knownHosts].filter((v): v is string => Boolean(v?.trim())), ...knownHosts];
  return { trusted, trustOnFirstUse: m?.trustOnFirstUse === true, recorded: host.status?.managementHostKey };
}

type SmapiSpec = NonNullable<ZHost['spec']['smapi']>;

/** TLS settings of a ZHost's SMAPI client: system CAs, the CA bundle of tlsCaSecret (key ca.crt), a pinned certificate. */
export async function smapiTlsOptions(smapi: SmapiSpec, readSecret: (name: string) => Promise<Record<string, string>>): Promise<Pick<SmapiClientOptions, 'tls' | 'tlsCertSha256'>> {
  if (!smapi.tls) return {};
  let ca: string | undefined;
  if (smapi.tlsCaSecret) {
    ca = (await readSecret(smapi.tlsCaSecret))['ca.crt'];
    if (!ca?.includes('BEGIN CERTIFICATE')) throw new InvalidSpecError(`Secret ${smapi.tlsCaSecret} needs the key ca.crt holding PEM certificates`, []);
  }
  return { tls: ca ? { ca } : true, ...(smapi.tlsCertSha256 ? { tlsCertSha256: smapi.tlsCertSha256 } : {}) };
}
