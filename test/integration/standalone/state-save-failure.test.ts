/**
 * A change the embedded store cannot save (its file's place is taken, as on a read-only or full
 * state directory) reaches no controller, and the REST caller gets a 5xx envelope that says so.
 */
import { jest } from '@jest/globals';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { http, standaloneForSuite } from './helpers.js';

jest.setTimeout(60_000);

describe('standalone (JSON store): a store write that fails', () => {
  // the JSON file store's failure mode (SQLite's: sqlite-save-failure.test.ts)
  const suite = standaloneForSuite({ store: 'json' });

  it('answers POST /guests with a 503 envelope saying the state could not be saved, and nothing reaches the host', async () => {
    const storeFile = join(suite.dir, 'store.json');
    rmSync(storeFile);
    mkdirSync(join(storeFile, 'blocker'), { recursive: true });

    const res = await http(suite.app.restUrl, 'POST', '/guests', { guest: { userid: 'nosave1', vcpus: 1, memory: 512 } });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ overallRC: 503, rc: 503, rs: 1 });
    expect(res.body.errmsg).toMatch(/state could not be saved/);
    expect(await suite.app.store.get('ZGuest', { namespace: 'default', name: 'nosave1' })).toBeUndefined();
    // give a controller every chance to act on it, had it been told
    await new Promise((r) => setTimeout(r, 500));
    expect(await suite.app.hosts.forHost('default')!.describeGuest('NOSAVE1')).toBeUndefined();

    rmSync(storeFile, { recursive: true });
    const again = await http(suite.app.restUrl, 'POST', '/guests', { guest: { userid: 'nosave1', vcpus: 1, memory: 512 } });
    expect(again.status).toBe(200);
    expect((await suite.app.hosts.forHost('default')!.describeGuest('NOSAVE1'))?.userid).toBe('NOSAVE1');
  });
});
