import { describe as describeText } from '../../../src/cmd/describe.js';
import { formatAge } from '../../../src/cmd/duration.js';
import type { RecordedEvent } from '../../../src/runtime/memory-event-recorder.js';
import { aGuest, GUEST_UID } from '../../builders/zguest.js';

const NOW = new Date('2026-01-01T00:10:00Z');

describe('describe', () => {
  const guest = aGuest({ userid: 'LINUX01' }, {
    name: 'linux01', labels: { team: 'a' },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', reason: 'GuestRunning', message: 'the guest is on as requested', lastTransitionTime: '2026-01-01T00:09:00Z' }] } as never,
  });
  const events: RecordedEvent[] = [
    { involvedObject: { kind: 'ZGuest', namespace: 'default', name: 'linux01', uid: GUEST_UID }, type: 'Normal', reason: 'Created', message: 'defined guest LINUX01', count: 1, firstTimestamp: '2026-01-01T00:09:00Z', lastTimestamp: '2026-01-01T00:09:00Z' },
    { involvedObject: { kind: 'ZGuest', namespace: 'default', name: 'linux01', uid: GUEST_UID }, type: 'Warning', reason: 'DriftDetected', message: 'the guest is off', count: 3, firstTimestamp: '2026-01-01T00:00:00Z', lastTimestamp: '2026-01-01T00:09:50Z' },
  ];

  it('lays out identity, spec, status, the conditions table and the Events', () => {
    const text = describeText(guest, events, NOW);
    expect(text).toMatch(/^Name: +linux01\nNamespace: +default\nKind: +ZGuest\n/);
    expect(text).toContain('Labels:      team=a\n');
    expect(text).toContain('Created:     2026-01-01T00:00:00Z (10m ago)\n');
    expect(text).toMatch(/\nSpec:\n {2}userid: LINUX01\n/);
    expect(text).toMatch(/\nStatus:\n {2}phase: Running\nConditions:\n/); // conditions only in their table
    expect(text).toMatch(/\n {2}Type +Status +Reason +Age +Message\n {2}-+ +-+ +-+ +-+ +-+\n {2}Ready +True +GuestRunning +60s +the guest is on as requested\n/);
    expect(text).toMatch(/\nEvents:\n {2}Type +Reason +Age +Message\n/);
    expect(text).toMatch(/\n {2}Normal +Created +60s +defined guest LINUX01\n/);
    expect(text).toMatch(/\n {2}Warning +DriftDetected +10s \(x3 over 10m\) +the guest is off\n$/);
  });

  it('leaves out the Events of a deleted earlier object of the same name (another uid)', () => {
    const earlier: RecordedEvent = {
      involvedObject: { kind: 'ZGuest', namespace: 'default', name: 'linux01', uid: 'uid-of-the-deleted-one' }, type: 'Warning', reason: 'ProvisioningFailed',
      message: 'the earlier guest failed', count: 1, firstTimestamp: '2026-01-01T00:01:00Z', lastTimestamp: '2026-01-01T00:01:00Z',
    };
    const text = describeText(guest, [earlier, ...events], NOW);
    expect(text).not.toContain('the earlier guest failed');
    expect(text).toContain('defined guest LINUX01');
    expect(describeText(guest, [earlier], NOW)).toMatch(/\nEvents:\n {2}<none>\n$/);
  });

  it('says <none> where there is nothing', () => {
    const bare = aGuest({}, { name: 'x' });
    const text = describeText(bare, [], NOW);
    expect(text).toContain('Annotations: <none>\n');
    expect(text).toMatch(/\nStatus:\n {2}<none>\nConditions:\n {2}<none>\nEvents:\n {2}<none>\n$/);
  });
});

describe('formatAge (kubectl)', () => {
  it.each([
    [0, '0s'], [59_000, '59s'], [119_000, '119s'], [200_000, '3m20s'], [180_000, '3m'], [45 * 60_000, '45m'],
    [200 * 60_000, '3h20m'], [40 * 3_600_000, '40h'], [77 * 3_600_000, '3d5h'], [20 * 86_400_000, '20d'], [800 * 86_400_000, '2y'], [-5000, '0s'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatAge(ms)).toBe(text);
  });
});
