/** Per-path statistics and FCP usage by the reference's rules (feilong volumeop.py, cases A–H; database get_usage_of_fcp). */
import type { FcpUsage } from '../../../../src/api/index.js';
import { computeRelease, computeReserve, emptyUsage } from '../../../../src/controllers/zfcp-template/ledger.js';
import { allocatedFrom, computeRaw, computeStatistics } from '../../../../src/controllers/zfcp-template/statistics.js';

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
      available: '1B00', available_count: 1, reserve_only: '1B01', connection_only: '1B02', allocated_but_free: '1B02',
      allocated: '', offline: '1B04', unallocated_but_active: { '1B03': 'zvmbkup1' }, CHPIDs: { '3b': '1B00 - 1B04' },
    });
  });

  it('answers fcp.tmpl_id: empty when not in use, the recorded template, else the ledger’s', () => {
    expect(allocatedFrom(row('1a00', { assignerId: 'G1' }), 'T')).toBe('');
    expect(allocatedFrom(row('1a00', { reserved: 1, templateId: 'OTHER' }), 'T')).toBe('OTHER');
    expect(allocatedFrom(row('1a00', { reserved: 1 }), 'T')).toBe('T');
    expect(computeRaw([row('1a00', {})], 'T')['0'][0].slice(9)).toEqual(['none', '']);
  });

  it('a reserve takes a released FCP and forgets an old template; a release clears it', () => {
    const reserved = computeReserve([row('1a00', { assignerId: 'OLD', templateId: '' })], 'G9', 1);
    expect(reserved.fcps[0]).toMatchObject({ fcp: '1a00', assignerId: 'G9', reserved: 1 });
    expect(reserved.fcps[0]).not.toHaveProperty('templateId');
    const released = computeRelease([row('1a00', { assignerId: 'G9', reserved: 1, templateId: 'X' })], 'G9');
    expect(released.rows[0]).not.toHaveProperty('templateId');
  });
});
