import type { FcpUsage } from '../../../../../src/api/index.js';
import { computeLedger, connectionsBefore, declaredFrom, type VolumeConnection } from '../../../../../src/controllers/kit/fcp-ledger/derive.js';
import { computeLedgerRows, computeRelease, computeReserve, computeSetUsage, emptyUsage } from '../../../../../src/controllers/kit/fcp-ledger/ledger.js';
import { computeStatistics, formatFcpRanges } from '../../../../../src/controllers/kit/fcp-ledger/statistics.js';

const free = (fcp: string, path: number): FcpUsage => ({ ...emptyUsage(fcp, path), state: 'free', chpid: path === 0 ? '27' : '28', pchid: path === 0 ? '02E4' : '0264' });
const rows = [free('1a00', 0), free('1a01', 0), free('1b00', 1)];
const conn = (volume: string, fcp = '1a00', assignerId = 'G1'): VolumeConnection => ({ volume, fcp, assignerId });

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

  it('counts each volume that holds a connection once, reserving the FCP for its guest while it lasts', () => {
    const once = computeLedger(rows, [], [conn('ns/v1')]);
    expect(once[0]).toMatchObject({ connections: 1, reserved: 1, assignerId: 'G1', volumes: ['ns/v1'] });
    expect(computeLedger(once, [], [conn('ns/v1')])).toEqual(once);
    const twice = computeLedger(once, [], [conn('ns/v1'), conn('ns/v2')]);
    expect(twice[0]).toMatchObject({ connections: 2, reserved: 1, assignerId: 'G1', volumes: ['ns/v1', 'ns/v2'] });
    expect(computeRelease(twice, 'G1').changed).toBe(false);
    // gone: with nothing declared, the row is free again
    expect(computeLedger(twice, [], [])[0]).toEqual(free('1a00', 0));
  });

  it('keeps declared usage and counts the volumes that connected or went since on top of it', () => {
    const reserved = computeReserve(rows, 'G1', 2).rows;
    const declared = declaredFrom(reserved);
    expect(declared).toEqual([{ fcp: '1a00', assignerId: 'G1', reserved: 1, connections: 0 }, { fcp: '1b00', assignerId: 'G1', reserved: 1, connections: 0 }]);
    const attached = computeLedger(reserved, declared, [conn('ns/v1')]);
    expect(attached[0]).toMatchObject({ assignerId: 'G1', reserved: 1, connections: 1, volumes: ['ns/v1'] });
    // detached: the reservation stays until released (feilong's get_volume_connector without reserve)
    const detached = computeLedger(attached, declared, []);
    expect(detached[0]).toMatchObject({ assignerId: 'G1', reserved: 1, connections: 0 });
    expect(computeRelease(detached, 'G1').rows[0]).toMatchObject({ assignerId: '', reserved: 0, connections: 0 });
  });

  it('takes set_fcp_usage as the count at that moment: a volume it counted that goes takes one off, a new one adds one', () => {
    const attached = computeLedger(rows, [], [conn('ns/v1')]);
    const set = computeSetUsage(attached, '1a00', { userid: 'G9', reserved: 1, connections: 3 });
    const declared = declaredFrom(set);
    expect(declared[0]).toEqual({ fcp: '1a00', assignerId: 'G9', reserved: 1, connections: 3, volumes: ['ns/v1'] });
    expect(computeLedger(set, declared, [conn('ns/v1')])[0]).toMatchObject({ connections: 3, assignerId: 'G9' });
    expect(computeLedger(set, declared, [])[0]).toMatchObject({ connections: 2, assignerId: 'G9' });
    expect(computeLedger(set, declared, [conn('ns/v1'), conn('ns/v2', '1a00', 'G2')])[0]).toMatchObject({ connections: 4, assignerId: 'G2', volumes: ['ns/v1', 'ns/v2'] });
    const zero = declaredFrom(computeSetUsage(attached, '1a00', { userid: '', reserved: 0, connections: 0 }));
    expect(computeLedger(attached, zero, [])[0].connections).toBe(0);
  });

  it('keeps a volume\'s place once the ledger showed it, so one volume only counts as the first connection', () => {
    const first = computeLedger(rows, [], [conn('ns/b')]);
    expect(connectionsBefore(first[0], 'ns/b')).toBe(0);
    // an older volume whose connection the ledger sees later comes after the one it already showed
    const both = computeLedger(first, [], [conn('ns/a'), conn('ns/b')]);
    expect(both[0].volumes).toEqual(['ns/b', 'ns/a']);
    expect([connectionsBefore(both[0], 'ns/b'), connectionsBefore(both[0], 'ns/a')]).toEqual([0, 1]);
    expect(connectionsBefore(both[0], 'ns/c')).toBeUndefined();
    // connections declared through set_fcp_usage come before any volume
    const set = computeSetUsage(rows, '1a00', { userid: 'G1', reserved: 1, connections: 2 });
    expect(connectionsBefore(computeLedger(set, declaredFrom(set), [conn('ns/v')])[0], 'ns/v')).toBe(2);
  });

  it('keeps usage of listed FCPs, drops unlisted ones and takes WWPNs and state from the host', () => {
    const used = computeLedger(rows, [], [conn('ns/v1', '1a01')]);
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
    const stats = computeStatistics(computeLedger(rows, [], [conn('ns/v1')]));
    expect(stats['0']).toMatchObject({
      total: '1A00 - 1A01', total_count: { '02E4': 2 }, available: '1A01', available_count: { '02E4': 1 }, allocated: '1A00', allocated_but_free: '1A00',
      chpids: { 27: '1A00 - 1A01' }, pchids: { '02E4': '27' },
    });
  });
});
