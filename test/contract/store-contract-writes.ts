/** Contract: create, update and patch of the main resource. */
import type { ZGuest, ZHost } from '../../src/api/index.js';
import { aGuest, aHost, expectRejectsWith, rejection, RFC3339, type ContractContext } from './store-fixtures.js';

export function describeCreate(ctx: ContractContext): void {
  describe('create', () => {
    it('assigns uid, resourceVersion, generation 1 and creationTimestamp', async () => {
      const created = await ctx.store().create(aGuest(await ctx.namespace()));
      expect(created.metadata.uid).toEqual(expect.any(String));
      expect(created.metadata.uid).not.toBe('');
      expect(created.metadata.resourceVersion).toEqual(expect.any(String));
      expect(created.metadata.generation).toBe(1);
      expect(created.metadata.creationTimestamp).toMatch(RFC3339);
      expect(created.spec).toMatchObject({ userid: 'LINUX01', vcpus: 1, memory: '1G' });
    });

    it('gives two objects different uids and resourceVersions', async () => {
      const ns = await ctx.namespace();
      const a = await ctx.store().create(aGuest(ns));
      const b = await ctx.store().create(aGuest(ns));
      expect(a.metadata.uid).not.toBe(b.metadata.uid);
      expect(a.metadata.resourceVersion).not.toBe(b.metadata.resourceVersion);
    });

    it('returns what a later get returns', async () => {
      const guest = aGuest(await ctx.namespace());
      const created = await ctx.store().create(guest);
      expect(await ctx.store().get('ZGuest', { namespace: guest.metadata.namespace, name: guest.metadata.name })).toEqual(created);
    });

    it('rejects an existing key with ALREADY_EXISTS', async () => {
      const guest = aGuest(await ctx.namespace());
      await ctx.store().create(guest);
      await expectRejectsWith(ctx.store().create(guest), 'ALREADY_EXISTS');
    });

    it('rejects an invalid spec with INVALID_SPEC naming the schema path', async () => {
      const err = await rejection(ctx.store().create(aGuest(await ctx.namespace(), undefined, { vcpus: 0 })));
      expect(err.code).toBe('INVALID_SPEC');
      expect(err.issues?.map((i) => i.path)).toContain('/spec/vcpus');
    });

    it('ignores status on create (it belongs to the status subresource)', async () => {
      const guest: ZGuest = { ...aGuest(await ctx.namespace()), status: { phase: 'Running' } };
      const created = await ctx.store().create(guest);
      expect(created.status?.phase).toBeUndefined();
    });

    it('stores a cluster-scoped object without a namespace', async () => {
      const host = aHost();
      const created = await ctx.store().create(host);
      expect(created.metadata.namespace ?? '').toBe('');
      const read = await ctx.store().get<ZHost>('ZHost', { name: host.metadata.name });
      expect(read?.metadata.uid).toBe(created.metadata.uid);
    });

    it('answers get of a missing object with undefined', async () => {
      expect(await ctx.store().get('ZGuest', { namespace: await ctx.namespace(), name: 'no-such-guest' })).toBeUndefined();
    });
  });
}

export function describeUpdate(ctx: ContractContext): void {
  describe('update', () => {
    it('bumps generation and resourceVersion when the spec changes', async () => {
      const created = await ctx.store().create(aGuest(await ctx.namespace()));
      const updated = await ctx.store().update<ZGuest>({ ...created, spec: { ...created.spec, vcpus: 2 } });
      expect(updated.spec.vcpus).toBe(2);
      expect(updated.metadata.generation).toBe(2);
      expect(updated.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
    });

    it('keeps generation when only metadata changes', async () => {
      const created = await ctx.store().create(aGuest(await ctx.namespace()));
      const updated = await ctx.store().update({ ...created, metadata: { ...created.metadata, labels: { tier: 'web' } } });
      expect(updated.metadata.labels).toEqual({ tier: 'web' });
      expect(updated.metadata.generation).toBe(1);
      expect(updated.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
    });

    it('rejects a stale resourceVersion with CONFLICT', async () => {
      const created = await ctx.store().create(aGuest(await ctx.namespace()));
      await ctx.store().update<ZGuest>({ ...created, spec: { ...created.spec, vcpus: 2 } });
      await expectRejectsWith(ctx.store().update<ZGuest>({ ...created, spec: { ...created.spec, vcpus: 3 } }), 'CONFLICT');
    });

    it('ignores status and keeps the stored one', async () => {
      const created = await ctx.store().create(aGuest(await ctx.namespace()));
      const withStatus = await ctx.store().patchStatus<ZGuest>('ZGuest', created.metadata, { phase: 'Running' });
      const updated = await ctx.store().update<ZGuest>({ ...withStatus, status: { phase: 'Hacked' }, spec: { ...withStatus.spec, vcpus: 2 } });
      expect(updated.status?.phase).toBe('Running');
    });

    it('does not bump resourceVersion for a write that changes nothing', async () => {
      const created = await ctx.store().create(aGuest(await ctx.namespace()));
      const again = await ctx.store().update(created);
      expect(again.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
      expect(again.metadata.generation).toBe(1);
    });

    it('keeps uid and creationTimestamp immutable', async () => {
      const created = await ctx.store().create(aGuest(await ctx.namespace()));
      const updated = await ctx.store().update({
        ...created,
        metadata: { ...created.metadata, creationTimestamp: '2001-01-01T00:00:00Z', labels: { a: 'b' } },
      });
      expect(updated.metadata.creationTimestamp).toBe(created.metadata.creationTimestamp);
      await rejection(ctx.store().update({ ...updated, metadata: { ...updated.metadata, uid: 'another-uid' } }));
      const read = await ctx.store().get('ZGuest', created.metadata);
      expect(read?.metadata.uid).toBe(created.metadata.uid);
    });

    it('validates the new object and leaves the stored one alone when invalid', async () => {
      const created = await ctx.store().create(aGuest(await ctx.namespace()));
      await expectRejectsWith(ctx.store().update<ZGuest>({ ...created, spec: { ...created.spec, memory: '2048' } }), 'INVALID_SPEC');
      expect((await ctx.store().get<ZGuest>('ZGuest', created.metadata))?.spec.memory).toBe('1G');
    });

    it('answers an update of a missing object with NOT_FOUND', async () => {
      await expectRejectsWith(ctx.store().update(aGuest(await ctx.namespace())), 'NOT_FOUND');
    });
  });
}

export function describePatch(ctx: ContractContext): void {
  describe('patch (RFC 7386 merge patch)', () => {
    it('merges objects, replaces arrays and deletes fields set to null', async () => {
      const guest = aGuest(await ctx.namespace(), undefined, { comments: ['one', 'two'] });
      guest.metadata.labels = { keep: 'yes', drop: 'yes' };
      const created = await ctx.store().create(guest);
      const patched = await ctx.store().patch<ZGuest>('ZGuest', created.metadata, {
        metadata: { labels: { drop: null, added: 'yes' } },
        spec: { vcpus: 4, comments: ['three'] },
      });
      expect(patched.metadata.labels).toEqual({ keep: 'yes', added: 'yes' });
      expect(patched.spec).toMatchObject({ userid: 'LINUX01', vcpus: 4, memory: '1G', comments: ['three'] });
      expect(patched.metadata.generation).toBe(2);
    });

    it('honours a resourceVersion precondition', async () => {
      const created = await ctx.store().create(aGuest(await ctx.namespace()));
      const first = await ctx.store().patch('ZGuest', created.metadata, { spec: { vcpus: 2 } }, { resourceVersion: created.metadata.resourceVersion });
      await expectRejectsWith(
        ctx.store().patch('ZGuest', created.metadata, { spec: { vcpus: 3 } }, { resourceVersion: created.metadata.resourceVersion }),
        'CONFLICT',
      );
      expect((await ctx.store().get('ZGuest', created.metadata))?.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    });

    it('ignores status in a main-resource patch', async () => {
      const created = await ctx.store().create(aGuest(await ctx.namespace()));
      const patched = await ctx.store().patch<ZGuest>('ZGuest', created.metadata, { status: { phase: 'Running' }, spec: { vcpus: 2 } });
      expect(patched.status?.phase).toBeUndefined();
      expect(patched.spec.vcpus).toBe(2);
    });

    it('rejects a patch that makes the object invalid', async () => {
      const created = await ctx.store().create(aGuest(await ctx.namespace()));
      const err = await rejection(ctx.store().patch('ZGuest', created.metadata, { spec: { vcpus: 65 } }));
      expect(err.code).toBe('INVALID_SPEC');
      expect((await ctx.store().get<ZGuest>('ZGuest', created.metadata))?.spec.vcpus).toBe(1);
    });

    it('answers a patch of a missing object with NOT_FOUND', async () => {
      await expectRejectsWith(ctx.store().patch('ZGuest', { namespace: await ctx.namespace(), name: 'missing' }, { spec: { vcpus: 2 } }), 'NOT_FOUND');
    });
  });
}
