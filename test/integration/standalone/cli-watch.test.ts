import { API_VERSION, type ZGuest } from '../../../src/api/index.js';
import { spawnZvm } from '../../builders/zvm.js';
import { startTestStandalone, tempStateDir } from './helpers.js';

async function waitFor(what: string, probe: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > until) throw new Error(`${what}: not reached in time`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('zvm-operator get -w', () => {
  const state = tempStateDir();
  afterAll(() => state.cleanup());

  it('prints the table, then a row again when the resource changes', async () => {
    const app = await startTestStandalone(state.dir);
    const child = spawnZvm(['get', 'zg', '-w', '--server', app.adminUrl], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => { out += d; });
    try {
      const guest: ZGuest = { apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name: 'watch01', namespace: 'default' }, spec: { userid: 'WATCH01', vcpus: 1, memory: '512M', powerState: 'Running' } };
      await waitFor('the header', () => out.includes('NAME'));
      await app.store.create(guest);
      await waitFor('a row with the guest on', () => /watch01\s+WATCH01\s+default\s+on\b/.test(out));
      await app.store.patch('ZGuest', { namespace: 'default', name: 'watch01' }, { spec: { powerState: 'Stopped' } });
      await waitFor('a new row with the guest off', () => /watch01\s+WATCH01\s+default\s+off\b/.test(out));
      expect(out.split('\n').filter((l) => l.startsWith('NAMESPACE')).length).toBe(1); // the header once
    } finally {
      child.kill('SIGTERM');
      await app.stop();
    }
  }, 120_000);
});
