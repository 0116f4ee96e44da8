/**
 * A change the SQLite store cannot save (another process holds the database's write lock past the
 * busy timeout, as a stuck backup would) reaches no controller, and the REST caller gets a 5xx
 * envelope that says so; once the lock is gone the same call succeeds.
 */
import { jest } from '@jest/globals';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { http, standaloneForSuite } from './helpers.js';

jest.setTimeout(60_000);

describe('standalone on SQLite: a store write that fails', () => {
  const suite = standaloneForSuite();

  it('answers POST /guests with a 503 envelope saying the state could not be saved, and nothing reaches the host', async () => {
    const blocker = new Database(join(suite.dir, 'state.db'));
    blocker.exec('BEGIN IMMEDIATE');
    try {
      const res = await http(suite.app.restUrl, 'POST', '/guests', { guest: { userid: 'nosave1', vcpus: 1, memory: 512 } });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ overallRC: 503, rc: 503, rs: 1 });
      expect(res.body.errmsg).toMatch(/state could not be saved/);
    } finally {
      blocker.exec('ROLLBACK');
      blocker.close();
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
