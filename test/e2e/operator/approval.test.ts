/**
 * Approval mode on a real apiserver, with the chart's controller pod (one replica): on a ZHost with
 * changePolicy Approve a new guest is held in status.pendingPlan, a newer spec supersedes the plan, an
 * approval of the old hash does nothing (and the controller says it is superseded), the current hash
 * lets the change through, a drift repair waits for its own approval, and each applied plan's Event
 * names the field manager that wrote its approval.
 */
import { kubectl, kubectlOk } from '../../kube/kubectl.js';
import { chartPodsForSuite } from './chart-suite.js';
import { applyObjects, eventually, type LoggedProcess } from './helpers.js';
import { aZGuest } from './shared-host.js';

const suite = chartPodsForSuite({
  prepare: (o) => kubectlOk(['patch', 'zh/default', '--type=merge', '-p', '{"spec":{"changePolicy":"Approve"}}'], { kubeconfig: o.kubeconfig }).then(() => undefined),
  set: ['replicas=1,rest.enabled=false'],
});
const { env } = suite;
let controller: LoggedProcess | undefined;

async function pendingPlan(name: string): Promise<{ hash: string; generation: number; steps: string[] } | undefined> {
  const { kubeconfig, namespace } = env();
  const out = await kubectlOk(['get', '-n', namespace, `zg/${name}`, '-o', 'jsonpath={.status.pendingPlan}'], { kubeconfig });
  return out.trim() ? (JSON.parse(out) as { hash: string; generation: number; steps: string[] }) : undefined;
}

/** `kubectl annotate`, under its own field manager (kubectl-annotate) unless told another. */
async function approve(name: string, hash: string, fieldManager?: string): Promise<void> {
  const { kubeconfig, namespace } = env();
  const manager = fieldManager ? [`--field-manager=${fieldManager}`] : [];
  await kubectlOk(['annotate', '--overwrite', ...manager, '-n', namespace, `zg/${name}`, `zvm.dev/approved-plan=${hash}`], { kubeconfig });
}

async function pendingReason(name: string): Promise<string> {
  const { kubeconfig, namespace } = env();
  return kubectlOk(['get', '-n', namespace, `zg/${name}`, '-o', 'jsonpath={.status.conditions[?(@.type=="PendingApproval")].reason}'], { kubeconfig });
}

beforeAll(() => {
  controller = suite.install().pod().containers.controller?.proc;
});

describe('change approval on the real apiserver', () => {
  it('holds, supersedes, applies the approved plan only, and holds a drift repair', async () => {
    const { kubeconfig, namespace } = env();
    const watch = controller ? [controller] : [];
    await applyObjects(env(), [aZGuest('held', 'HELD')]);
    let first: Awaited<ReturnType<typeof pendingPlan>>;
    await eventually('a pending plan', async () => Boolean((first = await pendingPlan('held'))), watch);
    expect(first?.steps).toEqual([expect.stringMatching(/^createGuest /), 'start']);
    expect(await pendingReason('held')).toBe('AwaitingApproval');
    expect(await suite.host().hypervisor.describeGuest('HELD')).toBeUndefined();

    await kubectlOk(['patch', '-n', namespace, 'zg/held', '--type=merge', '-p', '{"spec":{"vcpus":2}}'], { kubeconfig });
    let second: Awaited<ReturnType<typeof pendingPlan>>;
    await eventually('a new plan for the newer spec', async () => (second = await pendingPlan('held'))?.hash !== first?.hash, watch);
    expect(second?.generation).toBe(2);

    await approve('held', first!.hash); // superseded: approves nothing, and the controller says so
    await eventually('the stale approval seen', async () => (await pendingReason('held')) === 'ApprovalSuperseded', watch);
    expect(await suite.host().hypervisor.describeGuest('HELD')).toBeUndefined();
    expect((await pendingPlan('held'))?.hash).toBe(second?.hash);
    await approve('held', second!.hash, 'change-board');
    await kubectlOk(['wait', '-n', namespace, '--for=condition=Ready', 'zg/held', '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
    expect((await suite.host().hypervisor.describeGuest('HELD'))?.directory.cpus).toBe(2);
    expect(await pendingPlan('held')).toBeUndefined();

    // drift under Approve: the repair is a plan like any other
    await suite.host().hypervisor.stop('HELD');
    let repair: Awaited<ReturnType<typeof pendingPlan>>;
    await eventually('the repair held', async () => (repair = await pendingPlan('held'))?.steps.join() === 'start', watch, 90_000);
    expect((await suite.host().hypervisor.describeGuest('HELD'))?.power).toBe('off');
    await approve('held', repair!.hash);
    await eventually('the guest on again', async () => (await suite.host().hypervisor.describeGuest('HELD'))?.power === 'on', watch);

    const reasons = await kubectlOk(['get', 'events', '-n', namespace, '--field-selector', 'involvedObject.name=held', '-o', 'jsonpath={.items[*].reason}'], { kubeconfig });
    expect(reasons.split(' ')).toEqual(expect.arrayContaining(['PendingApproval', 'ApprovedPlanApplied']));
    // who approved: the annotation's field manager, from managedFields (the create as change-board, the repair as kubectl)
    const applied = await kubectlOk(['get', 'events', '-n', namespace, '--field-selector', 'involvedObject.name=held,reason=ApprovedPlanApplied', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}'], { kubeconfig });
    expect(applied).toContain(`plan ${second!.hash} applied, approved by field manager "change-board"`);
    expect(applied).toContain(`plan ${repair!.hash} applied, approved by field manager "kubectl-annotate"`);
    const r = await kubectl(['get', '-n', namespace, 'zg/held', '-o', 'jsonpath={.status.conditions[?(@.type=="PendingApproval")].status}'], { kubeconfig });
    expect(r.stdout).toBe('False');
  }, 300_000);
});
