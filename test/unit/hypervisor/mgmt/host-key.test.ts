import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createHostVerifier, knownHostsFingerprints, normalizeFingerprint, sha256Fingerprint } from '../../../../src/hypervisor/mgmt/index.js';
import { generateEd25519KeyPair } from '../../../../src/hypervisor/sim/ssh/ssh-keys.js';

const pub = generateEd25519KeyPair().public; // "ssh-ed25519 AAAA… comment"
const blob = Buffer.from(pub.split(' ')[1]!, 'base64');
const other = Buffer.from(generateEd25519KeyPair().public.split(' ')[1]!, 'base64');
const fp = sha256Fingerprint(blob);

describe('host key fingerprints and known_hosts', () => {
  it('prints fingerprints as ssh-keygen -l does and reads hex or SHA256:base64', () => {
    const digest = createHash('sha256').update(blob).digest();
    expect(fp).toBe(`SHA256:${digest.toString('base64').replace(/=+$/, '')}`);
    expect(normalizeFingerprint(digest.toString('hex'))).toBe(fp);
    expect(normalizeFingerprint(`${fp}=`)).toBe(fp);
    expect(normalizeFingerprint('not a fingerprint')).toBeUndefined();
  });

  it('matches known_hosts lines by host, [host]:port, pattern lists and hashed names', () => {
    const salt = randomBytes(20);
    const hashed = (name: string) => `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`;
    const key = pub.split(' ').slice(0, 2).join(' ');
    const text = [
      '# comment',
      `mgmt.example.com,10.0.0.5 ${key}`,
      `[10.0.0.6]:2222 ${key}`,
      `${hashed('10.0.0.7')} ${key}`,
      `@revoked 10.0.0.8 ${key}`,
    ].join('\n');
    expect(knownHostsFingerprints(text, '10.0.0.5', 22)).toEqual([fp]);
    expect(knownHostsFingerprints(text, 'mgmt.example.com', 22)).toEqual([fp]);
    expect(knownHostsFingerprints(text, '10.0.0.6', 2222)).toEqual([fp]);
    expect(knownHostsFingerprints(text, '10.0.0.6', 22)).toEqual([]);
    expect(knownHostsFingerprints(text, '10.0.0.7', 22)).toEqual([fp]);
    expect(knownHostsFingerprints(text, '10.0.0.8', 22)).toEqual([]);
    expect(knownHostsFingerprints(key, 'anywhere', 22)).toEqual([fp]);
  });
});

describe('host verifier', () => {
  it('refuses every key when nothing is configured and first use is not trusted', () => {
    const v = createHostVerifier({}, 'h', 22);
    expect(v.verify(blob)).toBe(false);
    expect(v.lastRefusal()).toMatchObject({ reason: 'HostKeyNotConfigured', presented: fp, retryable: false });
  });

  it('accepts only configured keys', () => {
    const v = createHostVerifier({ trusted: [fp] }, 'h', 22);
    expect(v.verify(blob)).toBe(true);
    expect(v.accepted()).toBe(fp);
    expect(v.verify(other)).toBe(false);
    expect(v.lastRefusal()?.reason).toBe('HostKeyMismatch');
  });

  it('learns the first key on first use and refuses any other afterwards', () => {
    const v = createHostVerifier({ trustOnFirstUse: true }, 'h', 22);
    expect(v.verify(blob)).toBe(true);
    expect(v.learned()).toBe(fp);
    expect(v.verify(other)).toBe(false);
    expect(v.lastRefusal()?.reason).toBe('HostKeyChanged');
    expect(v.verify(blob)).toBe(true);
  });

  it('holds a recorded key like a configured one and calls another key a change', () => {
    const v = createHostVerifier({ trustOnFirstUse: true, recorded: fp }, 'h', 22);
    expect(v.verify(other)).toBe(false);
    expect(v.lastRefusal()?.reason).toBe('HostKeyChanged');
    expect(v.verify(blob)).toBe(true);
  });
});
