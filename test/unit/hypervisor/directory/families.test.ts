import { statementsOf } from '../../../../src/hypervisor/index.js';
import { rewriteEntry } from '../../../../src/hypervisor/zvm/directory-edits.js';
import { renderDirectory } from '../../../../src/hypervisor/directory/directory.js';

const entry = renderDirectory({
  userid: 'EDIT01', vcpus: 2, maxCpus: 32, memory: '1G', maxMemory: '2G', profile: 'OSDFLT', account: 'ACCT1', comments: ['first', 'ZVM-OPERATOR OWNER abc'],
  ipl: { device: '0100' },
});

describe('directory statement families', () => {
  it('reads each family from the entry, the owner comment not among the comments', () => {
    expect(statementsOf(entry, 'account')).toEqual(['ACCOUNT ACCT1']);
    expect(statementsOf(entry, 'comments')).toEqual(['* FIRST']);
    expect(statementsOf(entry, 'maxCpus')).toEqual(['MACHINE ESA 32']);
    expect(statementsOf(entry, 'ipl')).toEqual(['IPL 0100']);
  });

  it('replaces families in place and adds missing ones where CP reads them, keeping every other statement', () => {
    const out = rewriteEntry(entry, {
      maxMemory: '4G',
      statements: { account: ['ACCOUNT ACCT2'], comments: ['* SECOND'], maxCpus: ['MACHINE ESA 12'], dedicate: ['DEDICATE 1A0 1A0'], profile: [] },
    });
    expect(out[0]).toBe('USER EDIT01 LBYONLY 1G 4G G');
    expect(out).toContain('ACCOUNT ACCT2');
    expect(out).not.toContain('ACCOUNT ACCT1');
    expect(out).not.toContain('INCLUDE OSDFLT');
    expect(out.indexOf('MACHINE ESA 12')).toBe(entry.indexOf('MACHINE ESA 32') - 1);
    expect(out.slice(-2)).toEqual(['* SECOND', '* ZVM-OPERATOR OWNER ABC']);
    expect(out).toContain('DEDICATE 1A0 1A0');
    expect(out.filter((l) => l.startsWith('COMMAND DEFINE CPU'))).toHaveLength(2);
    const withProfile = rewriteEntry(out, { statements: { profile: ['INCLUDE PROF2'] } });
    expect(withProfile[1]).toBe('INCLUDE PROF2');
  });
});
