/** Contract: list, watch and the isolation of returned objects. */
import type { ZGuest } from '../../src/api/index.js';
import { aGuest, aHost, summary, take, type ContractContext } from './store-fixtures.js';

export function describeList(ctx: ContractContext): void {
  describe('list', () => {
    it('filters by namespace and equality label selector and returns a resourceVersion', async () => {
      const [ns, other] = [await ctx.namespace(), await ctx.namespace()];
      const web = aGuest(ns);
      web.metadata.labels = { tier: 'web', env: 'prod' };
      const db = aGuest(ns);
      db.metadata.labels = { tier: 'db', env: 'prod' };
      await ctx.store().create(web);
      await ctx.store().create(db);
      await ctx.store().create(aGuest(other));

      const all = await ctx.store().list('ZGuest', { namespace: ns });
      expect(all.items.map((g) => g.metadata.name).sort()).toEqual([web.metadata.name, db.metadata.name].sort());
      expect(all.resourceVersion).toEqual(expect.any(String));
      const selected = await ctx.store().list('ZGuest', { namespace: ns, labelSelector: { tier: 'web', env: 'prod' } });
      expect(selected.items.map((g) => g.metadata.name)).toEqual([web.metadata.name]);
    });

    it('selects objects whose label is present with a value not in a set (notIn)', async () => {
      const ns = await ctx.namespace();
      const made = await Promise.all(['a', 'b', 'c', undefined].map((tier) => {
        const g = aGuest(ns);
        if (tier) g.metadata.labels = { tier };
        return ctx.store().create(g);
      }));
      const names = async (notIn: string[]) => (await ctx.store().list('ZGuest', { namespace: ns, labelSelector: { tier: { notIn } } })).items.map((g) => g.metadata.name).sort();
      expect(await names(['a', 'b'])).toEqual([made[2].metadata.name]);
      // an empty set: every object that carries the label
      expect(await names([])).toEqual(made.slice(0, 3).map((g) => g.metadata.name).sort());
    });

    it('lists across namespaces in the apiserver\'s order, "namespace/name" as one string', async () => {
      const ns = await ctx.namespace();
      // a namespace that starts with the first one lists before it ('-' sorts before '/')
      const longer = await ctx.namespace(`${ns}-b`);
      for (const [namespace, name] of [[ns, 'y'], [longer, 'x'], [ns, 'x-1'], [ns, 'x']]) await ctx.store().create(aGuest(namespace, name));
      const listed = (await ctx.store().list('ZGuest')).items.filter((g) => [ns, longer].includes(g.metadata.namespace ?? ''));
      expect(listed.map((g) => `${g.metadata.namespace}/${g.metadata.name}`)).toEqual([`${longer}/x`, `${ns}/x`, `${ns}/x-1`, `${ns}/y`]);
    });

    it('lists cluster-scoped objects', async () => {
      const host = await ctx.store().create(aHost());
      const hosts = await ctx.store().list('ZHost');
      expect(hosts.items.map((h) => h.metadata.name)).toContain(host.metadata.name);
    });
  });
}

export function describeIsolation(ctx: ContractContext): void {
  describe('isolation', () => {
    it('never lets a caller mutate stored objects through what it passed or received', async () => {
      const ns = await ctx.namespace();
      const input = aGuest(ns);
      const created = await ctx.store().create(input);
      input.spec.vcpus = 9;
      created.spec.vcpus = 9;
      const read = await ctx.store().get<ZGuest>('ZGuest', created.metadata);
      if (!read) throw new Error('object vanished');
      read.spec.vcpus = 9;
      const listed = await ctx.store().list<ZGuest>('ZGuest', { namespace: ns });
      listed.items[0].spec.vcpus = 9;
      expect((await ctx.store().get<ZGuest>('ZGuest', created.metadata))?.spec.vcpus).toBe(1);
    });
  });
}

export function describeWatch(ctx: ContractContext): void {
  describe('watch', () => {
    it('without resourceVersion delivers only changes made after it started', async () => {
      const ns = await ctx.namespace();
      const before = await ctx.store().create(aGuest(ns));
      const controller = new AbortController();
      const events = ctx.store().watch<ZGuest>('ZGuest', { namespace: ns, signal: controller.signal });
      const after = await ctx.store().create(aGuest(ns));
      await ctx.store().patch('ZGuest', before.metadata, { spec: { vcpus: 2 } });
      const seen = await take(events, 2, controller);
      expect(summary(seen)).toEqual([`ADDED ${after.metadata.name}`, `MODIFIED ${before.metadata.name}`]);
      expect(seen[1].object.spec.vcpus).toBe(2);
    });

    it('replays every change after a given resourceVersion', async () => {
      const ns = await ctx.namespace();
      const a = await ctx.store().create(aGuest(ns));
      const { resourceVersion } = await ctx.store().list('ZGuest', { namespace: ns });
      const modified = await ctx.store().patch('ZGuest', a.metadata, { spec: { vcpus: 3 } });
      const b = await ctx.store().create(aGuest(ns));
      await ctx.store().delete('ZGuest', a.metadata);
      const controller = new AbortController();
      const seen = await take(ctx.store().watch('ZGuest', { namespace: ns, resourceVersion, signal: controller.signal }), 3, controller);
      expect(summary(seen)).toEqual([`MODIFIED ${a.metadata.name}`, `ADDED ${b.metadata.name}`, `DELETED ${a.metadata.name}`]);
      expect(seen[0].object.metadata.resourceVersion).toBe(modified.metadata.resourceVersion);
    });

    it('does not emit an event for a write that changes nothing', async () => {
      const ns = await ctx.namespace();
      const created = await ctx.store().create(aGuest(ns));
      const controller = new AbortController();
      const events = ctx.store().watch('ZGuest', { namespace: ns, resourceVersion: created.metadata.resourceVersion, signal: controller.signal });
      await ctx.store().update(created);
      await ctx.store().patch('ZGuest', created.metadata, { metadata: { labels: { changed: 'yes' } } });
      const seen = await take(events, 1, controller);
      expect(seen[0].object.metadata.labels).toEqual({ changed: 'yes' });
    });

    it('delivers only the watched kind and namespace', async () => {
      const [ns, other] = [await ctx.namespace(), await ctx.namespace()];
      const controller = new AbortController();
      const events = ctx.store().watch('ZGuest', { namespace: ns, signal: controller.signal });
      await ctx.store().create(aHost());
      await ctx.store().create(aGuest(other));
      const mine = await ctx.store().create(aGuest(ns));
      const seen = await take(events, 1, controller);
      expect(summary(seen)).toEqual([`ADDED ${mine.metadata.name}`]);
    });

    it('reports an object entering or leaving a label selector as ADDED or DELETED', async () => {
      const ns = await ctx.namespace();
      const created = await ctx.store().create(aGuest(ns));
      const controller = new AbortController();
      const events = ctx.store().watch('ZGuest', { namespace: ns, labelSelector: { pick: 'me' }, signal: controller.signal });
      await ctx.store().patch('ZGuest', created.metadata, { metadata: { labels: { pick: 'me' } } });
      await ctx.store().patch('ZGuest', created.metadata, { spec: { vcpus: 2 } });
      await ctx.store().patch('ZGuest', created.metadata, { metadata: { labels: { pick: null } } });
      const seen = await take(events, 3, controller);
      expect(seen.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    });

    it('ends cleanly when the signal aborts', async () => {
      const controller = new AbortController();
      const events = ctx.store().watch('ZGuest', { namespace: await ctx.namespace(), signal: controller.signal });
      const drained = (async () => {
        let count = 0;
        for await (const _event of events) count += 1;
        return count;
      })();
      controller.abort();
      await expect(drained).resolves.toBe(0);
    });

    it('hands out copies: mutating an event object does not change the store', async () => {
      const ns = await ctx.namespace();
      const controller = new AbortController();
      const events = ctx.store().watch<ZGuest>('ZGuest', { namespace: ns, signal: controller.signal });
      const created = await ctx.store().create(aGuest(ns));
      const [event] = await take(events, 1, controller);
      event.object.spec.vcpus = 7;
      expect((await ctx.store().get<ZGuest>('ZGuest', created.metadata))?.spec.vcpus).toBe(1);
    });
  });
}
