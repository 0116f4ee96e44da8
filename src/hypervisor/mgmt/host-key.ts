/**
 * SSH host-key verification (mandatory): which keys a host may present, and the ssh2 verifier that
 * enforces it. Keys come from configuration: SHA-256 fingerprints (`SHA256:<base64>` as OpenSSH
 * prints them, or hex) and OpenSSH known_hosts lines. Trust on first use is explicit: the first key
 * seen is remembered (the caller records it in ZHost status) and any later key is refused.
 */
import { createHash, createHmac } from 'node:crypto';
import { HypervisorError } from '../../errors.js';

export interface HostKeyPolicy {
  /** fingerprints (SHA256:base64 or hex) and/or known_hosts lines; any one of them is accepted */
  trusted?: string[];
  /** accept the first key when nothing is trusted yet, then only that one */
  trustOnFirstUse?: boolean;
  /** the key accepted on first use earlier (ZHost status), trusted like a configured one */
  recorded?: string;
}

export type HostKeyRefusal = 'HostKeyNotConfigured' | 'HostKeyMismatch' | 'HostKeyChanged';

/** Why a host was refused, and the key it presented (SHA256:base64, as `ssh-keygen -l` prints). */
export class HostKeyRejectedError extends HypervisorError {
  readonly reason: HostKeyRefusal;
  readonly presented: string;
  constructor(reason: HostKeyRefusal, target: string, presented: string) {
    super('ssh-host-key', 1, 0, refusalText(reason, target, presented), { retryable: false });
    this.reason = reason;
    this.presented = presented;
  }
}

function refusalText(reason: HostKeyRefusal, target: string, presented: string): string {
  if (reason === 'HostKeyNotConfigured') {
    return `${target} presented host key ${presented}, but no host key is configured: pin it (hostKeys / hostKeySha256 / known_hosts) or set trustOnFirstUse`;
  }
  if (reason === 'HostKeyChanged') return `${target} presented host key ${presented}, not the one trusted on first use: the connection is refused`;
  return `${target} presented host key ${presented}, which is not among the configured keys: the connection is refused`;
}

/** OpenSSH's fingerprint of a public key blob: `SHA256:` + unpadded base64 of its SHA-256. */
export function sha256Fingerprint(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** A configured fingerprint in the canonical form (SHA256:base64); undefined when it is not one. */
export function normalizeFingerprint(text: string): string | undefined {
  const t = text.trim();
  if (/^[0-9a-f]{64}$/i.test(t)) return `SHA256:${Buffer.from(t, 'hex').toString('base64').replace(/=+$/, '')}`;
  const b64 = t.replace(/^SHA256:/, '').replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/]{43}$/.test(b64)) return undefined;
  return `SHA256:${b64}`;
}

/** Does a known_hosts host field (`host`, `[host]:port`, patterns list, or hashed `|1|salt|hash`) name this host? */
function hostFieldMatches(field: string, host: string, port: number): boolean {
  const name = port === 22 ? host : `[${host}]:${port}`;
  if (field.startsWith('|1|')) {
    const [, , salt, hash] = field.split('|');
    if (!salt || !hash) return false;
    return createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64') === hash;
  }
  const patterns = field.split(',');
  if (patterns.some((p) => p.startsWith('!') && p.slice(1) === name)) return false;
  return patterns.some((p) => p === name || p === '*');
}

/**
 * Fingerprints of the known_hosts lines (OpenSSH format) that name host:port. Lines without a host
 * field (`ssh-ed25519 AAAA...`) apply to any host: that is how a single key is given in a Secret.
 */
export function knownHostsFingerprints(text: string, host: string, port: number): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('@revoked')) continue;
    const fields = line.replace(/^@cert-authority\s+/, '').split(/\s+/);
    const [first, second, third] = fields;
    const bare = /^(ssh-|ecdsa-|sk-)/.test(first ?? '');
    const blob = bare ? second : third;
    if (!blob || (!bare && !hostFieldMatches(first!, host, port))) continue;
    out.push(sha256Fingerprint(Buffer.from(blob, 'base64')));
  }
  return out;
}

/** Every fingerprint a policy accepts for host:port (configured ones first, then the recorded one). */
export function trustedFingerprints(policy: HostKeyPolicy, host: string, port: number): string[] {
  const out = new Set<string>();
  for (const entry of policy.trusted ?? []) {
    const fp = normalizeFingerprint(entry);
    for (const f of fp ? [fp] : knownHostsFingerprints(entry, host, port)) out.add(f);
  }
  const recorded = policy.recorded && normalizeFingerprint(policy.recorded);
  if (recorded) out.add(recorded);
  return [...out];
}

export interface HostVerifier {
  /** for ssh2's ConnectConfig.hostVerifier */
  verify(key: Buffer): boolean;
  /** the refusal of the current connection attempt, if its key was refused */
  lastRefusal(): HostKeyRejectedError | undefined;
  /** forgets the previous attempt's refusal: call before each connection attempt */
  reset(): void;
  /** the key accepted on first use, once there is one (the caller records it) */
  learned(): string | undefined;
  /** the key of the last accepted connection */
  accepted(): string | undefined;
}

/** The verifier of one endpoint; it keeps a key learned on first use for every later connection. */
export function createHostVerifier(policy: HostKeyPolicy, host: string, port: number, target = `${host}:${port}`): HostVerifier {
  const configured = trustedFingerprints(policy, host, port);
  let learned: string | undefined;
  let refusal: HostKeyRejectedError | undefined;
  let accepted: string | undefined;
  const accept = (fp: string) => {
    accepted = fp;
    return true;
  };
  return {
    verify(key) {
      const presented = sha256Fingerprint(key);
      refusal = undefined;
      if (configured.length > 0 || learned) {
        if (configured.includes(presented) || presented === learned) return accept(presented);
        const changed = learned !== undefined || (policy.recorded !== undefined && !(policy.trusted?.length));
        refusal = new HostKeyRejectedError(changed ? 'HostKeyChanged' : 'HostKeyMismatch', target, presented);
        return false;
      }
      if (policy.trustOnFirstUse) {
        learned = presented;
        return accept(presented);
      }
      refusal = new HostKeyRejectedError('HostKeyNotConfigured', target, presented);
      return false;
    },
    lastRefusal: () => refusal,
    reset() {
      refusal = undefined;
    },
    accepted: () => accepted,
    learned: () => learned ?? (policy.recorded ? normalizeFingerprint(policy.recorded) : undefined),
  };
}
