import type { Resource } from '../../../src/api/index.js';
import { enqueueForObject, enqueueMapped, type EventPredicate } from '../../../src/runtime/event-handlers.js';
import type { ObjectKey } from '../../../src/store/port.js';

const obj = (name: string, generation = 1): Resource => ({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name, namespace: 'default', generation }, spec: {} });

function sink() {
  const keys: ObjectKey[] = [];
  return { keys, add: (k: ObjectKey) => void keys.push(k) };
}

describe('event predicates', () => {
  const onlyGenerationChanges: EventPredicate = {
    create: (o) => o.metadata.name !== 'quiet',
    update: (a, b) => a.metadata.generation !== b.metadata.generation,
    delete: () => false,
  };

  it('enqueue only the events the predicate passes', () => {
    const s = sink();
    const h = enqueueForObject(s, onlyGenerationChanges);
    h.onAdd?.(obj('quiet'));
    h.onAdd?.(obj('a'));
    h.onUpdate?.(obj('b'), obj('b'));
    h.onUpdate?.(obj('c'), obj('c', 2));
    h.onDelete?.(obj('d'));
    expect(s.keys.map((k) => k.name)).toEqual(['a', 'c']);
  });

  it('pass every event without a predicate, and filter mapped watches the same way', () => {
    const s = sink();
    const h = enqueueForObject(s);
    h.onUpdate?.(obj('b'), obj('b'));
    h.onDelete?.(obj('d'));
    const mapped = sink();
    const m = enqueueMapped(mapped, (o) => [{ namespace: 'default', name: `${o.metadata.name}-owner` }], onlyGenerationChanges);
    m.onUpdate?.(obj('x'), obj('x'));
    m.onUpdate?.(obj('y'), obj('y', 3));
    expect(s.keys.map((k) => k.name)).toEqual(['b', 'd']);
    expect(mapped.keys.map((k) => k.name)).toEqual(['y-owner', 'y-owner']);
  });
});
