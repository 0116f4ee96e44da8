import { createUnrecordedAcks, withAcks } from '../../../../src/controllers/zguest/unrecorded.js';
import type { Step } from '../../../../src/controllers/zguest/steps.js';
import { aGuest } from '../../../builders/zguest.js';

const deployed: Step = { op: 'deployImage', image: 'rhel9', vdev: '0100' };
const rebooted: Step = { op: 'ackToken', token: 'reboot', value: '2026-01-01T00:00:00Z', cycled: true };
const started: Step = { op: 'start' };

describe('what a run did that its status write has not recorded yet', () => {
  it('applies the deployed image and the handled tokens to the guest, nothing else', () => {
    const guest = aGuest({}, { uid: 'u1', status: { phase: 'Running', deployedImage: 'old' } });
    expect(withAcks(guest, [started])).toBe(guest);
    expect(withAcks(guest, [deployed, rebooted, started]).status).toEqual({ phase: 'Running', deployedImage: 'rhel9', lastHandledRebootAt: '2026-01-01T00:00:00Z' });
    expect(guest.status?.deployedImage).toBe('old'); // pure
  });

  it('keeps them per guest uid until a write records them', () => {
    const acks = createUnrecordedAcks();
    const guest = aGuest({}, { uid: 'u1', status: { phase: 'Running' } });
    const other = aGuest({}, { name: 'g2', uid: 'u2', status: { phase: 'Running' } });
    acks.remember('u1', [started]);
    expect(acks.applyTo(guest)).toBe(guest); // nothing to keep
    acks.remember('u1', [deployed]);
    acks.remember('u1', [rebooted]);
    expect(acks.applyTo(guest).status).toMatchObject({ deployedImage: 'rhel9', lastHandledRebootAt: '2026-01-01T00:00:00Z' });
    expect(acks.applyTo(other)).toBe(other);
    // the same name made again is another guest: another uid
    expect(acks.applyTo(aGuest({}, { uid: 'u3' })).status?.deployedImage).toBeUndefined();
    acks.recorded('u1');
    expect(acks.applyTo(guest)).toBe(guest);
  });
});
