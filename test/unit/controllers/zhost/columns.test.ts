import { API_VERSION, SMAPI_REACHABLE, type ZHost } from '../../../../src/api/index.js';
import { computeZHostStatus, endpointOf } from '../../../../src/controllers/zhost/reconciler.js';

const host = (spec: ZHost['spec'], status?: ZHost['status']): ZHost => ({ apiVersion: API_VERSION, kind: 'ZHost', metadata: { name: 'h1', generation: 1 }, spec, ...(status ? { status } : {}) });
const NOW = new Date('2026-01-01T00:00:00Z');

describe('ZHost columns from status', () => {
  it('SIMULATED and ENDPOINT say something for every kind of host', () => {
    expect(endpointOf(host({ simulated: true }))).toEqual({ simulated: true, endpoint: 'built-in simulator' });
    expect(endpointOf(host({ smapi: { host: 'zvm1.example', port: 44445 } }))).toEqual({ simulated: false, endpoint: 'smapi://zvm1.example:44445' });
    expect(endpointOf(host({ smapi: { host: 'zvm1.example', tls: true } }))).toEqual({ simulated: false, endpoint: 'smapi+tls://zvm1.example:44444' });
  });

  it('keeps the Ready message when a run reads no host facts', () => {
    const read = computeZHostStatus(host({ simulated: true }), { connected: true, smapiHealthy: true, summary: { version: '7.3.0' } as never, guestCount: 3 }, NOW);
    const ready = (s: ZHost['status']) => s?.conditions?.find((c) => c.type === 'Ready')?.message;
    expect(ready(read)).toBe('z/VM 7.3.0 answers');
    const later = computeZHostStatus(host({ simulated: true }, read), { connected: true, smapiHealthy: true }, NOW);
    expect(ready(later)).toBe('z/VM 7.3.0 answers');
    expect(later).toMatchObject({ simulated: true, endpoint: 'built-in simulator', guestCount: 3 });
  });

  it('says what the connection really reaches when the spec does not (standalone --sim-address, --smapi-tcp)', () => {
    expect(endpointOf(host({ simulated: true }), { simulated: false, endpoint: 'smapi://127.0.0.1:44444' })).toEqual({ simulated: false, endpoint: 'smapi://127.0.0.1:44444' });
    const status = computeZHostStatus(host({ simulated: true }), { connected: true, smapiHealthy: true, connection: { simulated: false, endpoint: 'smapi://127.0.0.1:5' } }, NOW);
    expect(status).toMatchObject({ simulated: false, endpoint: 'smapi://127.0.0.1:5' });
  });

  it('stays not Ready (HostUnreachable) while the outage the drift detector recorded lasts, whatever the counters say; not a condition left in status', () => {
    const outage = { since: NOW.toISOString(), message: 'the SMAPI of host h1 has not answered since x' };
    const status = computeZHostStatus(host({ simulated: true }), { connected: true, smapiHealthy: true }, NOW, { outage });
    expect(status.phase).toBe('Unavailable');
    expect(status.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'HostUnreachable', message: outage.message });
    expect(status.conditions?.find((c) => c.type === SMAPI_REACHABLE)).toMatchObject({ status: 'False', reason: 'HostUnreachable' });
    // the condition it wrote is not memory: without the fact the host is Ready again
    const after = computeZHostStatus(host({ simulated: true }, { conditions: status.conditions }), { connected: true, smapiHealthy: true }, NOW, {});
    expect(after.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
    expect(after.conditions?.find((c) => c.type === SMAPI_REACHABLE)).toMatchObject({ status: 'True', reason: 'SmapiAnswers' });
  });
});
