import { pino } from 'pino';
import type { Resource } from '../../../src/api/index.js';
import { createMemoryEventRecorder } from '../../../src/runtime/memory-event-recorder.js';

const guest = (name: string): Resource => ({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name, namespace: 'default', uid: `uid-${name}` }, spec: {} });

describe('memory event recorder', () => {
  let tick: number;
  const now = () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++));
  beforeEach(() => {
    tick = 0;
  });

  it('keeps the events of each object apart', () => {
    const recorder = createMemoryEventRecorder({ now });
    recorder.event(guest('a'), 'Normal', 'Created', 'guest defined');
    recorder.event(guest('b'), 'Warning', 'Failed', 'no disk space');
    expect(recorder.eventsFor(guest('a')).map((e) => e.reason)).toEqual(['Created']);
    expect(recorder.eventsFor(guest('b'))).toMatchObject([{ type: 'Warning', reason: 'Failed', message: 'no disk space', involvedObject: { kind: 'ZGuest', name: 'b', namespace: 'default' } }]);
    expect(recorder.eventsFor(guest('c'))).toEqual([]);
  });

  it('counts a repeated identical event instead of adding one', () => {
    const recorder = createMemoryEventRecorder({ now });
    for (let i = 0; i < 3; i += 1) recorder.event(guest('a'), 'Warning', 'Failed', 'no disk space');
    recorder.event(guest('a'), 'Warning', 'Failed', 'another message');
    const events = recorder.eventsFor(guest('a'));
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ message: 'no disk space', count: 3, firstTimestamp: '2026-01-01T00:00:00.000Z', lastTimestamp: '2026-01-01T00:00:02.000Z' });
    expect(events[1].count).toBe(1);
  });

  it('does not count an event of a later object of the same name into the earlier one\'s (another uid)', () => {
    const recorder = createMemoryEventRecorder({ now });
    const again = { ...guest('a'), metadata: { ...guest('a').metadata, uid: 'uid-a-2' } };
    recorder.event(guest('a'), 'Warning', 'Failed', 'no disk space');
    recorder.event(again, 'Warning', 'Failed', 'no disk space');
    expect(recorder.eventsFor(again).map((e) => [e.involvedObject.uid, e.count])).toEqual([['uid-a', 1], ['uid-a-2', 1]]);
  });

  it('evicts the least recently seen events beyond its limit', () => {
    const recorder = createMemoryEventRecorder({ now, limit: 2 });
    recorder.event(guest('a'), 'Normal', 'One', 'm');
    recorder.event(guest('a'), 'Normal', 'Two', 'm');
    recorder.event(guest('a'), 'Normal', 'One', 'm'); // refreshed: now the newest
    recorder.event(guest('b'), 'Normal', 'Three', 'm');
    expect(recorder.all().map((e) => e.reason)).toEqual(['One', 'Three']);
    expect(recorder.eventsFor(guest('a')).map((e) => e.reason)).toEqual(['One']);
  });

  it('logs each event with its object, reason and count', () => {
    const lines: Array<Record<string, unknown>> = [];
    const log = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const recorder = createMemoryEventRecorder({ now, log });
    recorder.event(guest('a'), 'Warning', 'Failed', 'no disk space');
    recorder.event(guest('a'), 'Warning', 'Failed', 'no disk space');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ level: 40, kind: 'ZGuest', key: 'default/a', reason: 'Failed', count: 2, msg: 'no disk space' });
  });
});
