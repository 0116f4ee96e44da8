import { API_VERSION, type ZGuest } from '../../../../src/api/index.js';
import { explainRefusal } from '../../../../src/controllers/zguest/refusals.js';
import { HypervisorError } from '../../../../src/errors.js';
import type { GuestDefinition } from '../../../../src/hypervisor/index.js';

const guest = (spec: Partial<ZGuest['spec']>): ZGuest => ({ apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name: 'web01' }, spec: { userid: 'WEB01', ...spec } });
const definition = { userid: 'WEB01', profile: 'WEBPROF' } as GuestDefinition;
const notFound = new HypervisorError('Image_Create_DM', 436, 4, 'Image_Create_DM WEB01: rc 436 rs 4 (profile error: included profile not found)');

describe('a refused directory write in words that say what to do', () => {
  it('names the missing profile and where to fix it, keeping fn, rc and rs', () => {
    const err = explainRefusal({ op: 'createGuest', definition }, notFound, guest({ class: 'web-small' }));
    expect({ fn: err.fn, rc: err.rc, rs: err.rs, retryable: err.retryable }).toEqual({ fn: 'Image_Create_DM', rc: 436, rs: 4, retryable: false });
    expect(err.message).toBe('directory profile WEBPROF does not exist on host default (included profile not found): create profile WEBPROF on z/VM, or name an existing profile in spec.profile of the guest or of its ZGuestClass web-small');
    expect(err.cause).toBe(notFound);
  });

  it('points at spec.profile, or at the host defaults when nothing in the guest names it', () => {
    expect(explainRefusal({ op: 'createGuest', definition }, notFound, guest({ profile: 'WEBPROF' })).message).toMatch(/in spec\.profile$/);
    expect(explainRefusal({ op: 'createGuest', definition }, notFound, guest({})).message).toMatch(/in spec\.profile \(or the ZHost's spec\.defaults\.profile\)$/);
  });

  it('reads the profile of a rewrite from its INCLUDE statement', () => {
    const err = explainRefusal({ op: 'rewriteDirectory', statements: { profile: ['INCLUDE NEWPROF'] } }, new HypervisorError('Image_Replace_DM', 436, 4, 'x'), guest({ profile: 'NEWPROF' }));
    expect(err.message).toMatch(/^directory profile NEWPROF does not exist/);
  });

  it('leaves every other refusal as it is', () => {
    const other = new HypervisorError('Image_Create_DM', 400, 8, 'already defined');
    expect(explainRefusal({ op: 'createGuest', definition }, other, guest({}))).toBe(other);
    expect(explainRefusal({ op: 'start' }, notFound, guest({}))).toBe(notFound);
  });
});
