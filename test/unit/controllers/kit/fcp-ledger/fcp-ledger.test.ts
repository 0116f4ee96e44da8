import type { FcpUsage } from '../../../../../src/api/index.js';
import {
  computeConnect, computeDisconnect, computeLedgerRows, computeRelease, computeReserve, emptyUsage,
} from '../../../../../src/controllers/kit/fcp-ledger/ledger.js';
import { computeStatistics, formatFcpRanges } from '../../../../../src/controllers/kit/fcp-ledger/statistics.js';

const free = (fcp: string, path: number): FcpUsage => ({ ...emptyUsage(fcp, path), state: 'free', chpid: path === 0 ? '27' : '28', pchid: path === 0 ? '02E4' : '0264' });
const rows = [free('1a00', 0), free('1a01', 0), free('1b00', 1)];

describe('FCP ledger', () => {
  it('reserves the lowest free FCP of each path and keeps the same FCPs for the same guest', () => {
    const a = computeReserve(rows, 'G1', 2);
    expect(a.fcps.map((r) => r.fcp)).toEqual(['1a00', '1b00']);
    expect(a.changed).toBe(true);
    const b = computeReserve(a.rows, 'G1', 2);
    expect(b).toMatchObject({ changed: false });
    expect(b.fcps.map((r) => r.fcp)).toEqual(['1a00', '1b00']);
    const other = computeReserve(a.rows, 'G2', 2);
    expect(other.fcps).toEqual([]);
    expect(other.reason).toContain('1 path(s)');
    expect(computeReserve(a.rows, 'G2', 1).fcps.map((r) => r.fcp)).toEqual(['1a01']);
  });

  it('counts a volume once per FCP however often it connects, and releases only FCPs without connections', () => {
    const once = computeConnect(rows, ['1a00'], 'G1', 'ns/v1');
    expect(computeConnect(once, ['1a00'], 'G1', 'ns/v1')).toEqual(once);
    const twice = computeConnect(once, ['1a00'], 'G1', 'ns/v2');
    expect(twice[0]).toMatchObject({ connections: 2, reserved: 1, assignerId: 'G1' });
    expect(computeRelease(twice, 'G1').changed).toBe(false);
    const back = computeDisconnect(computeDisconnect(twice, ['1a00'], 'ns/v1'), ['1a00'], 'ns/v1');
    expect(back[0].connections).toBe(1);
    const none = computeDisconnect(back, ['1a00'], 'ns/v2');
    expect(computeRelease(none, 'G1').rows[0]).toMatchObject({ reserved: 0, assignerId: '', connections: 0 });
  });

  it('keeps usage of listed FCPs, drops unlisted ones and takes WWPNs and state from the host', () => {
    const used = computeConnect(rows, ['1a01'], 'G1', 'ns/v1');
    const next = computeLedgerRows(used, [['1a01', '1a02']], [{ fcp: '1a01', wwpnNpiv: 'n', wwpnPhy: 'p', chpid: '27', state: 'active', owner: 'G1' }]);
    expect(next.map((r) => [r.fcp, r.connections, r.state, r.owner])).toEqual([['1a01', 1, 'active', 'G1'], ['1a02', 0, 'notfound', '']]);
  });

  it('takes the PCHID the management guest reported, and keeps the last one when a sync could not read it', () => {
    const device = { fcp: '1a01', wwpnNpiv: 'n', wwpnPhy: 'p', chpid: '27', state: 'free' as const };
    const read = computeLedgerRows([], [['1a01']], [{ ...device, pchid: '02E4' }]);
    expect(read[0].pchid).toBe('02E4');
    expect(computeLedgerRows(read, [['1a01']], [device])[0].pchid).toBe('02E4');
  });

  it('formats ranges and per-path statistics', () => {
    expect(formatFcpRanges(['1a02', '1a00', '1a01', '1a05'])).toBe('1A00 - 1A02, 1A05');
    const stats = computeStatistics(computeConnect(rows, ['1a00'], 'G1', 'ns/v1'));
    expect(stats['0']).toMatchObject({
      total: '1A00 - 1A01', total_count: { '02E4': 2 }, available: '1A01', available_count: { '02E4': 1 }, allocated: '1A00', allocated_but_free: '1A00',
      chpids: { 27: '1A00 - 1A01' }, pchids: { '02E4': '27' },
    });
  });
});
