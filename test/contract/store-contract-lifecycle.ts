/** Contract: the status subresource, deletion and finalizers. */
import type { ZGuest } from '../../src/api/index.js';
import { aGuest, expectRejectsWith, summary, take, type ContractContext } from './store-fixtures.js';

export function describeStatus(ctx: ContractContext): void {
  describe('status subresource', () => {
    it('updateStatus changes only status and never generation', async () => {
      const created = await ctx.store().create(aGuest(await ctx.namespace()));
      const updated = await ctx.store().updateStatus<ZGuest>({
        ...created,
        spec: { ...created.spec, vcpus: 8 },
        metadata: { ...created.metadata, labels: { sneaky: 'yes' } },
        status: { phase: 'Running', observedGeneration: 1 },
      });
      expect(updated.status).toMatchObject({ phase: 'Running', observedGeneration: 1 });
      expect(updated.spec.vcpus).toBe(1);
      expect(updated.metadata.labels?.sneaky).toBeUndefined();
      expect(updated.metadata.generation).toBe(1);
      expect(updated.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
    });

    it('patchStatus merges into the stored status and null deletes a field', async () => {
      const created = await ctx.store().create(aGuest(await ctx.namespace()));
      await ctx.store().patchStatus('ZGuest', created.metadata, { phase: 'Creating', powerState: 'off' });
      const patched = await ctx.store().patchStatus<ZGuest>('ZGuest', created.metadata, { phase: null, vcpus: 1 });
      expect(patched.status).toEqual({ powerState: 'off', vcpus: 1 });
      expect(patched.metadata.generation).toBe(1);
    });

    it('rejects a stale resourceVersion with CONFLICT', async () => {
      const created = await ctx.store().create(aGuest(await ctx.namespace()));
      await ctx.store().patchStatus('ZGuest', created.metadata, { phase: 'Creating' });
      await expectRejectsWith(ctx.store().updateStatus<ZGuest>({ ...created, status: { phase: 'Running' } }), 'CONFLICT');
      await expectRejectsWith(
        ctx.store().patchStatus('ZGuest', created.metadata, { phase: 'Running' }, { resourceVersion: created.metadata.resourceVersion }),
        'CONFLICT',
      );
    });

    it('validates status', async () => {
      const created = await ctx.store().create(aGuest(await ctx.namespace()));
      await expectRejectsWith(ctx.store().patchStatus('ZGuest', created.metadata, { vcpus: 'two' }), 'INVALID_SPEC');
    });

    it('does not bump resourceVersion for a status write that changes nothing', async () => {
      const created = await ctx.store().create(aGuest(await ctx.namespace()));
      const first = await ctx.store().patchStatus('ZGuest', created.metadata, { phase: 'Running' });
      const second = await ctx.store().patchStatus('ZGuest', created.metadata, { phase: 'Running' });
      expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    });
  });
}

export function describeDelete(ctx: ContractContext): void {
  describe('delete and finalizers', () => {
    it('removes an object without finalizers', async () => {
      const created = await ctx.store().create(aGuest(await ctx.namespace()));
      await ctx.store().delete('ZGuest', created.metadata);
      expect(await ctx.store().get('ZGuest', created.metadata)).toBeUndefined();
      await expectRejectsWith(ctx.store().delete('ZGuest', created.metadata), 'NOT_FOUND');
    });

    it('only marks an object with finalizers, and removes it with its last finalizer', async () => {
      const guest = aGuest(await ctx.namespace());
      guest.metadata.finalizers = ['zvm.dev/a', 'zvm.dev/b'];
      const created = await ctx.store().create(guest);
      await ctx.store().delete('ZGuest', created.metadata);
      const marked = await ctx.store().get<ZGuest>('ZGuest', created.metadata);
      expect(marked?.metadata.deletionTimestamp).toEqual(expect.any(String));
      expect(marked?.metadata.finalizers).toEqual(['zvm.dev/a', 'zvm.dev/b']);

      await ctx.store().patch('ZGuest', created.metadata, { metadata: { finalizers: ['zvm.dev/b'] } });
      expect(await ctx.store().get('ZGuest', created.metadata)).toBeDefined();
      await ctx.store().patch('ZGuest', created.metadata, { metadata: { finalizers: null } });
      expect(await ctx.store().get('ZGuest', created.metadata)).toBeUndefined();
    });

    it('refuses new finalizers on an object being deleted', async () => {
      const guest = aGuest(await ctx.namespace());
      guest.metadata.finalizers = ['zvm.dev/a'];
      const created = await ctx.store().create(guest);
      await ctx.store().delete('ZGuest', created.metadata);
      await expectRejectsWith(
        ctx.store().patch('ZGuest', created.metadata, { metadata: { finalizers: ['zvm.dev/a', 'zvm.dev/late'] } }),
        'INVALID_SPEC',
      );
      expect((await ctx.store().get('ZGuest', created.metadata))?.metadata.finalizers).toEqual(['zvm.dev/a']);
    });

    it('keeps deletionTimestamp once set', async () => {
      const guest = aGuest(await ctx.namespace());
      guest.metadata.finalizers = ['zvm.dev/a'];
      const created = await ctx.store().create(guest);
      await ctx.store().delete('ZGuest', created.metadata);
      const marked = await ctx.store().get<ZGuest>('ZGuest', created.metadata);
      if (!marked) throw new Error('object vanished');
      const cleared = await ctx.store().update({ ...marked, metadata: { ...marked.metadata, deletionTimestamp: undefined, labels: { x: 'y' } } });
      expect(cleared.metadata.deletionTimestamp).toBe(marked.metadata.deletionTimestamp);
    });

    it('honours a resourceVersion precondition', async () => {
      const created = await ctx.store().create(aGuest(await ctx.namespace()));
      await ctx.store().patch('ZGuest', created.metadata, { spec: { vcpus: 2 } });
      await expectRejectsWith(ctx.store().delete('ZGuest', created.metadata, { resourceVersion: created.metadata.resourceVersion }), 'CONFLICT');
      expect(await ctx.store().get('ZGuest', created.metadata)).toBeDefined();
    });

    it('tells watchers of the mark (MODIFIED) and of the removal (DELETED)', async () => {
      const ns = await ctx.namespace();
      const guest = aGuest(ns);
      guest.metadata.finalizers = ['zvm.dev/a'];
      const created = await ctx.store().create(guest);
      const controller = new AbortController();
      const events = ctx.store().watch<ZGuest>('ZGuest', { namespace: ns, resourceVersion: created.metadata.resourceVersion, signal: controller.signal });
      await ctx.store().delete('ZGuest', created.metadata);
      await ctx.store().patch('ZGuest', created.metadata, { metadata: { finalizers: [] } });
      const seen = await take(events, 2, controller);
      expect(summary(seen)).toEqual([`MODIFIED ${guest.metadata.name}`, `DELETED ${guest.metadata.name}`]);
      expect(seen[0].object.metadata.deletionTimestamp).toEqual(expect.any(String));
    });
  });
}
