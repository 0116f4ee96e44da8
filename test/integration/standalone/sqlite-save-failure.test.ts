/**
 * A change the SQLite store cannot save (another process holds the database's write lock past the
 * busy timeout, as a stuck backup would) reaches no controller, and the REST caller gets a 5xx
 * envelope that says so; once the lock is gone the same call succeeds.
 */
import { jest } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { http, standaloneForSuite } from './helpers.js';

/**
 * Another process takes the write lock and holds it until told to let go. It must be another process:
 * a synchronous BEGIN IMMEDIATE in the test's own thread would block the event loop that has to
 * finish standalone's open batch, and so fail "database is locked" itself whenever a batch is open.
 */
async function holdWriteLock(dbPath: string): Promise<{ release(): Promise<void> }> {
  // a busy timeout of its own: standalone may be committing at that moment (CI once saw "database is locked" here)
  const script = "const db = new (process.getBuiltinModule('node:sqlite').DatabaseSync)(process.argv[1], { timeout: 10000 }); db.exec('BEGIN IMMEDIATE'); process.stdout.write('locked\\n');"
    + " process.stdin.once('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });";
  const child: ChildProcess = spawn(process.execPath, ['--no-warnings', '-e', script, dbPath], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => { if (chunk.toString().includes('locked')) resolve(); });
    child.once('exit', (code) => reject(new Error(`the lock holder exited (${code}) before taking the lock`)));
  });
  return {
    async release() {
      const exited = once(child, 'exit');
      child.stdin!.end('go\n');
      await exited;
    },
  };
}

jest.setTimeout(60_000);

describe('standalone on SQLite: a store write that fails', () => {
  const suite = standaloneForSuite();

  it('answers POST /guests with a 503 envelope saying the state could not be saved, and nothing reaches the host', async () => {
    const blocker = await holdWriteLock(join(suite.dir, 'state.db'));
    try {
      const res = await http(suite.app.restUrl, 'POST', '/guests', { guest: { userid: 'nosave1', vcpus: 1, memory: 512 } });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ overallRC: 503, rc: 503, rs: 1 });
      expect(res.body.errmsg).toMatch(/state could not be saved/);
    } finally {
      await blocker.release();
    }
    expect(await suite.app.store.get('ZGuest', { namespace: 'default', name: 'nosave1' })).toBeUndefined();
    // give a controller every chance to act on it, had it been told
    await new Promise((r) => setTimeout(r, 500));
    expect(await suite.app.hosts.forHost('default')!.describeGuest('NOSAVE1')).toBeUndefined();

    const again = await http(suite.app.restUrl, 'POST', '/guests', { guest: { userid: 'nosave1', vcpus: 1, memory: 512 } });
    expect(again.status).toBe(200);
    expect((await suite.app.hosts.forHost('default')!.describeGuest('NOSAVE1'))?.userid).toBe('NOSAVE1');
  });
});
