/**
 * Approval mode in standalone: on a ZHost with changePolicy Approve, a guest's host changes wait in
 * status.pendingPlan until the annotation zvm.dev/approved-plan names the plan's hash; a newer spec
 * makes a new plan, and an approval of the old one does nothing.
 */
import type { ZGuest } from '../../../src/api/index.js';
import { http, standaloneForSuite, waitFor } from './helpers.js';

const key = { namespace: 'default', name: 'held01' };
const condition = (g: ZGuest | undefined) => g?.status?.conditions?.find((c) => c.type === 'PendingApproval');

describe('change approval on a ZHost with changePolicy Approve', () => {
  const s = standaloneForSuite();

  it('holds a create, supersedes it on a newer spec, and applies only the approved plan', async () => {
    const { app } = s;
    await http(app.adminUrl, 'POST', '/apply', { apiVersion: 'zvm.dev/v1beta1', kind: 'ZHost', metadata: { name: 'prod' }, spec: { simulated: true, changePolicy: 'Approve' } });
    const hv = await waitFor(async () => app.hosts.forHost('prod'));
    await http(app.adminUrl, 'POST', '/apply', {
      apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: key, spec: { host: 'prod', userid: 'HELD01', vcpus: 2, memory: '2G' },
    });
    const get = () => app.store.get<ZGuest>('ZGuest', key);
    const held = await waitFor(async () => ((await get())?.status?.pendingPlan ? get() : undefined));
    expect(held?.status?.pendingPlan).toMatchObject({ generation: 1, steps: [expect.stringMatching(/^createGuest /), 'start'] });
    expect(condition(held)).toMatchObject({ status: 'True', reason: 'AwaitingApproval' });
    expect(await hv.describeGuest('HELD01')).toBeUndefined();
    const first = held?.status?.pendingPlan?.hash ?? '';

    await app.store.patch('ZGuest', key, { spec: { vcpus: 3 } });
    const superseded = await waitFor(async () => {
      const g = await get();
      return g?.status?.pendingPlan && g.status.pendingPlan.hash !== first ? g : undefined;
    });
    expect(superseded?.status?.pendingPlan?.generation).toBe(2);

    await app.store.patch('ZGuest', key, { metadata: { annotations: { 'zvm.dev/approved-plan': first } } });
    // the controller has seen the stale approval once it says so; it must not have acted on it
    const stale = await waitFor(async () => (condition(await get())?.reason === 'ApprovalSuperseded' ? get() : undefined));
    expect(condition(stale)?.message).toContain(`the approval names plan ${first}`);
    expect(stale?.status?.pendingPlan?.hash).toBe(superseded?.status?.pendingPlan?.hash);
    expect(await hv.describeGuest('HELD01')).toBeUndefined();

    await app.store.patch('ZGuest', key, { metadata: { annotations: { 'zvm.dev/approved-plan': superseded?.status?.pendingPlan?.hash } } });
    const ready = await waitFor(async () => {
      const g = await get();
      return g?.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True') ? g : undefined;
    });
    expect(ready.status?.pendingPlan).toBeUndefined();
    expect(condition(ready)).toMatchObject({ status: 'False', reason: 'NothingPending' });
    expect((await hv.describeGuest('HELD01'))?.directory.cpus).toBe(3);
    const events = await http<{ reason: string; message: string }[]>(app.adminUrl, 'GET', '/resources/zg/held01/events?namespace=default');
    const reasons = (events.body as unknown as { reason: string }[]).map((e) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(['PendingApproval', 'ApprovedPlanApplied']));
    // standalone's store records no field managers: the Event says so rather than naming someone
    const applied = (events.body as unknown as { reason: string; message: string }[]).find((e) => e.reason === 'ApprovedPlanApplied');
    expect(applied?.message).toContain('approved by an identity this store does not record');
  }, 60_000);

  it('answers a REST create under Approve at once with an envelope saying it waits for approval', async () => {
    const { app } = s;
    await app.store.patch('ZHost', { name: 'default' }, { spec: { changePolicy: 'Approve' } });
    const res = await http<unknown>(app.restUrl, 'POST', '/guests', { guest: { userid: 'REST01', vcpus: 1, memory: 512 } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ overallRC: 202, rc: 202, rs: 4, errmsg: expect.stringMatching(/^Accepted, waiting for approval: .*zvm\.dev\/approved-plan=[0-9a-f]{16}/) });
    expect(await app.hosts.forHost('default')?.describeGuest('REST01')).toBeUndefined();
  }, 60_000);
});
