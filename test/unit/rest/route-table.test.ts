import { describe, expect, it } from '@jest/globals';
import { createRouteTable } from '../../../src/rest/route-table.js';

describe('route table: the first declared path a concrete path matches', () => {
  const table = createRouteTable();
  for (const [method, url] of [['GET', '/guests'], ['GET', '/guests/stats'], ['DELETE', '/guests/:userid'], ['GET', '/guests/:userid/info'], ['GET', '/host']]) table.add({ method, url });

  it('a path an earlier template also matches belongs to the earlier one', () => {
    expect(table.isFirstMatch('/guests/:userid', '/guests/stats')).toBe(false);
    expect(table.match('/guests/stats')?.url).toBe('/guests/stats');
  });

  it('a template no earlier one overlaps answers for every path its pattern fits, and only those', () => {
    expect(table.isFirstMatch('/guests/:userid', '/guests/ABC')).toBe(true);
    expect(table.isFirstMatch('/guests/:userid/info', '/guests/ABC/info')).toBe(true);
    expect(table.isFirstMatch('/host', '/host')).toBe(true);
    expect(table.isFirstMatch('/guests/:userid/info', '/guests/ABC/disks')).toBe(false);
  });

  it('a later declaration that shadows nothing earlier changes no earlier answer', () => {
    table.add({ method: 'GET', url: '/guests/:userid/power_state' });
    expect(table.isFirstMatch('/guests/:userid/power_state', '/guests/X/power_state')).toBe(true);
    expect(table.isFirstMatch('/guests/:userid', '/guests/stats')).toBe(false);
  });
});
