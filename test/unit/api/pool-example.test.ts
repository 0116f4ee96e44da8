import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { validateResource } from '../../../src/api/index.js';

describe('examples/zguestpool.yaml', () => {
  it('is a valid ZGuestClass and ZGuestPool', () => {
    const docs = parseAllDocuments(readFileSync('examples/zguestpool.yaml', 'utf8')).map((d) => d.toJSON() as { kind: string; metadata: Record<string, unknown> });
    expect(docs.map((d) => d.kind)).toEqual(['ZGuestClass', 'ZGuestPool']);
    for (const doc of docs) expect(() => validateResource({ ...doc, metadata: { namespace: 'default', ...doc.metadata } })).not.toThrow();
  });

  it('refuses a pool whose template has neither a class nor vcpus and memory, and a prefix that leaves no room', () => {
    const pool = (spec: Record<string, unknown>) => ({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuestPool', metadata: { name: 'p', namespace: 'default' }, spec: { replicas: 1, useridPrefix: 'WEB', template: { spec: {} }, ...spec } });
    expect(() => validateResource(pool({}))).toThrow('the template needs vcpus and memory unless it names a class');
    expect(() => validateResource(pool({ useridPrefix: 'TOOLONG', template: { spec: { class: 'c' } } }))).toThrow('/spec/useridPrefix');
    const placed = { template: { spec: { class: 'c' } } };
    expect(() => validateResource(pool({ ...placed, hosts: ['a'], hostSelector: { matchLabels: { zone: 'a' } } }))).toThrow('give hosts or hostSelector, not both');
    expect(() => validateResource(pool({ ...placed, hostSelector: { matchLabels: { zone: 'a' } } }))).not.toThrow();
  });
});
