/** Per-path statistics and FCP usage by the reference's rules (feilong volumeop.py, cases A–H; database get_usage_of_fcp). */
import type { FcpUsage } from '../../../../../src/api/index.js';
import { computeRelease, computeReserve, emptyUsage } from '../../../../../src/controllers/kit/fcp-ledger/ledger.js';
import { allocatedFrom, computeRaw, computeStatistics } from '../../../../../src/controllers/kit/fcp-ledger/statistics.js';

const row = (fcp: string, over: Partial<FcpUsage>): FcpUsage => ({ ...emptyUsage(fcp, 0), state: 'free', chpid: '3B', ...over });

describe('FCP statistics as the reference computes them', () => {
  const rows = [
    row('1b00', { assignerId: 'G1' }), // released: the assigner stays, the FCP is available (case A)
    row('1b01', { assignerId: 'G2', reserved: 1 }), // reserved, no volume, free in z/VM: reserve_only, not allocated_but_free
    row('1b02', { assignerId: 'G3', reserved: 0, connections: 1, state: 'free' }), // case D and F
    row('1b03', { state: 'active', owner: 'ZVMBKUP1' }), // used outside the ledger: case E, a dict
    row('1b04', { state: 'offline' }),
  ];

  it('classifies by reserved, connections and state only, and answers unallocated_but_active as {FCP: owner}', () => {
    expect(computeStatistics(rows)['0']).toMatchObject({
      available: '1B00', reserve_only: '1B01', connection_only: '1B02', allocated_but_free: '1B02',
      allocated: '', offline: '1B04', unallocated_but_active: { '1B03': 'zvmbkup1' }, chpids: { '3B': '1B00 - 1B04' },
    });
  });

  it('counts per PCHID as feilong builds them: dicts keyed by PCHID, not-found devices under `notfound`, lower-case section keys', () => {
    const mixed = [
      row('1a00', { chpid: '27', pchid: '02e4' }),
      row('1a01', { chpid: '27', pchid: '02e4', reserved: 1, connections: 1 }),
      row('1a02', { chpid: '3b', pchid: '03FC' }),
      row('1a03', { chpid: '3b', pchid: '03FC', state: 'active', owner: 'X' }),
      row('1a04', { chpid: '', state: 'notfound' }), // z/VM does not report it and it is unused: not in the FCP table
      row('1a05', { chpid: '3b', pchid: '03FC', state: 'notfound', reserved: 1, connections: 1 }), // in use: kept, not found
    ];
    const stats = computeStatistics(mixed)['0'] as Record<string, unknown>;
    expect(stats.total_count).toEqual({ '02E4': 2, '03FC': 3, notfound: 2 });
    expect(stats.available_count).toEqual({ '02E4': 1, '03FC': 1 });
    expect(stats).toMatchObject({ total: '1A00 - 1A05', notfound: '1A04 - 1A05', chpids: { 27: '1A00 - 1A01', '3B': '1A02 - 1A03, 1A05' }, pchids: { '02E4': '27', '03FC': '3B' } });
    expect(stats).not.toHaveProperty('CHPIDs');
    // a PCHID whose devices are all in use still counts 0 available, as feilong initialises it
    expect(computeStatistics([row('1c00', { pchid: '0240', reserved: 1, connections: 1 })])['0']).toMatchObject({ total_count: { '0240': 1 }, available_count: { '0240': 0 } });
    // no PCHID known (no management guest): empty dicts, never numbers
    expect(computeStatistics([row('1d00', {})])['0']).toMatchObject({ total_count: {}, available_count: {}, pchids: {} });
  });

  it('answers fcp.tmpl_id: empty when not in use, the recorded template, else the ledger’s', () => {
    expect(allocatedFrom(row('1a00', { assignerId: 'G1' }), 'T')).toBe('');
    expect(allocatedFrom(row('1a00', { reserved: 1, templateId: 'OTHER' }), 'T')).toBe('OTHER');
    expect(allocatedFrom(row('1a00', { reserved: 1 }), 'T')).toBe('T');
    expect(computeRaw([row('1a00', { pchid: '02E4' })], 'T')['0'][0].slice(7)).toEqual(['3b', '02E4', 'free', 'none', '']);
  });

  it('a reserve takes a released FCP and forgets an old template; a release clears it', () => {
    const reserved = computeReserve([row('1a00', { assignerId: 'OLD', templateId: '' })], 'G9', 1);
    expect(reserved.fcps[0]).toMatchObject({ fcp: '1a00', assignerId: 'G9', reserved: 1 });
    expect(reserved.fcps[0]).not.toHaveProperty('templateId');
    const released = computeRelease([row('1a00', { assignerId: 'G9', reserved: 1, templateId: 'X' })], 'G9');
    expect(released.rows[0]).not.toHaveProperty('templateId');
  });
});
