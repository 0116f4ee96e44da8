import type { ZHost } from '../../../../src/api/index.js';
import { recordSecurityEvents, withSecurityStatus } from '../../../../src/controllers/zhost/security.js';
import { HostKeyRejectedError } from '../../../../src/hypervisor/mgmt/index.js';
import { createMemoryEventRecorder } from '../../../../src/runtime/index.js';

const NOW = new Date('2026-11-23T00:00:00Z');
const FP = `SHA256:${'A'.repeat(43)}`;
const aHost = (spec: ZHost['spec'], status?: ZHost['status']): ZHost => ({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'h', generation: 1 }, spec, status });
const ready = { phase: 'Ready', conditions: [{ type: 'Ready', status: 'True' as const, reason: 'Ready', message: '', lastTransitionTime: NOW.toISOString() }] };
const cond = (s: ZHost['status'], type: string) => s?.conditions?.find((c) => c.type === type);

describe('ZHost security status', () => {
  it.each<[string, ZHost['spec'], string | undefined, string]>([
    ['plain TCP', { smapi: { host: 'zvm1' } }, 'False', 'PlainTcp'],
    ['TLS with system CAs', { smapi: { host: 'zvm1', tls: true } }, 'True', 'Tls'],
    ['TLS pinned', { smapi: { host: 'zvm1', tls: true, tlsCertSha256: 'AB'.repeat(32) } }, 'True', 'Tls'],
    ['simulated', { simulated: true }, undefined, ''],
  ])('TransportSecure for %s', (_label, spec, status, reason) => {
    const next = withSecurityStatus(aHost(spec), ready, undefined, NOW);
    if (!status) return expect(cond(next, 'TransportSecure')).toBeUndefined();
    expect(cond(next, 'TransportSecure')).toMatchObject({ status, reason });
    expect(cond(next, 'Ready')?.status).toBe('True'); // a warning, not an outage
  });

  it('makes a host with a refused key not Ready and keeps the key recorded on first use', () => {
    const host = aHost({ simulated: true, management: { host: 'm', trustOnFirstUse: true } }, { managementHostKey: FP });
    const refusal = new HostKeyRejectedError('HostKeyChanged', 'root@m:22', `SHA256:${'B'.repeat(43)}`);
    const next = withSecurityStatus(host, { ...ready, managementHostKey: FP }, { refusal }, NOW);
    expect(cond(next, 'Ready')).toMatchObject({ status: 'False', reason: 'HostKeyChanged' });
    expect(cond(next, 'HostKeyVerified')).toMatchObject({ status: 'False', reason: 'HostKeyChanged' });
    expect(next.phase).toBe('Unavailable');
    expect(next.managementHostKey).toBe(FP);
  });

  it('records the first accepted key only with trustOnFirstUse', () => {
    expect(withSecurityStatus(aHost({ simulated: true, management: { host: 'm', trustOnFirstUse: true } }), ready, { accepted: FP }, NOW).managementHostKey).toBe(FP);
    expect(withSecurityStatus(aHost({ simulated: true, management: { host: 'm', hostKeys: [FP] } }), ready, { accepted: FP }, NOW).managementHostKey).toBeUndefined();
  });

  it('records one Warning Event when a condition turns False, not on every refresh', () => {
    const events = createMemoryEventRecorder();
    const host = aHost({ smapi: { host: 'zvm1' } });
    const first = withSecurityStatus(host, ready, undefined, NOW);
    recordSecurityEvents(events, host, first);
    recordSecurityEvents(events, { ...host, status: first }, withSecurityStatus({ ...host, status: first }, first, undefined, NOW));
    expect(events.all().map((e) => [e.type, e.reason, e.count])).toEqual([['Warning', 'PlainTcp', 1]]);
  });
});
