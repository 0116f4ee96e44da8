import { Writable } from 'node:stream';
import type { ZGuest } from '../../../../src/api/index.js';
import { applyZGuestSteps } from '../../../../src/controllers/zguest/apply.js';
import type { Step } from '../../../../src/controllers/zguest/steps.js';
import { createLogger } from '../../../../src/log.js';
import { createMemoryEventRecorder } from '../../../../src/runtime/memory-event-recorder.js';
import { createEmbeddedStore } from '../../../../src/store/embedded/index.js';
import { FakeHypervisor } from '../../../builders/fake-hypervisor.js';

const guest = { apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name: 'g', namespace: 'default', uid: 'u1' }, spec: { userid: 'LINUX01' } } as unknown as ZGuest;

/** Runs the steps with an info-level logger and answers the lines it wrote. */
async function linesOf(steps: Step[]): Promise<{ level: number; msg: string; ops?: string[] }[]> {
  const chunks: string[] = [];
  const log = createLogger({ level: 'info' }, new Writable({ write(c: Buffer, _e, done) { chunks.push(c.toString()); done(); } }));
  const ctx = { hv: new FakeHypervisor(), store: createEmbeddedStore(), events: createMemoryEventRecorder(), log, guest, userid: 'LINUX01', signal: new AbortController().signal };
  await applyZGuestSteps(steps, ctx);
  return chunks.join('').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { level: number; msg: string; ops?: string[] });
}

describe('the lines applying ZGuest steps writes', () => {
  it('is one info line naming every step when the host changed', async () => {
    const definition = { userid: 'LINUX01', vcpus: 1, maxCpus: 8, memory: '1G', maxMemory: '8G' };
    const lines = await linesOf([{ op: 'createGuest', definition }, { op: 'start' }]);
    expect(lines.filter((l) => l.msg === 'applied')).toEqual([expect.objectContaining({ level: 30, ops: ['createGuest', 'start'] })]);
  });

  it('is nothing at info when only the store bookkeeping ran (a token acknowledged)', async () => {
    const lines = await linesOf([{ op: 'ackToken', token: 'reboot', value: '1', cycled: true }]);
    expect(lines.filter((l) => l.msg === 'applied')).toEqual([]);
  });
});
