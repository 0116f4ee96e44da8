/**
 * A guest's console output the real way, with no simulator shortcut: the SMAPI adapter calls
 * Image_Console_Get over TCP (which moves the console spool file into the management guest's
 * reader and returns no data), then the mgmt adapter receives the guest's CON files over the
 * simulator's SSH endpoint with `vmur list` / `vmur re -t -O`. Both sides share one SimHost.
 *
 * Repeated calls: as feilong's, the answer is the guest's accumulated console log (kept in
 * /var/lib/zvmsdk/guests/<USERID>/console.log on the management guest), so a later call returns
 * the earlier text followed by what was spooled since.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MgmtOps } from '../../src/hypervisor/image-port.js';
import { silentLogger } from '../../src/log.js';
import { createMgmtOps } from '../../src/hypervisor/mgmt/index.js';
import { createSshConnection, type SshConnection } from '../../src/hypervisor/mgmt/ssh-connection.js';
import type { Hypervisor } from '../../src/hypervisor/port.js';
import { createSimHost, type SimHost } from '../../src/hypervisor/sim/index.js';
import { startSimSshServer, type SimSshServer } from '../../src/hypervisor/sim/ssh/index.js';
import { createSmapiClient, type SmapiClient } from '../../src/hypervisor/smapi/client.js';
import { createSmapiServer, type SmapiServer } from '../../src/hypervisor/smapi/server.js';
import { createSmapiHypervisor } from '../../src/hypervisor/zvm/hypervisor.js';
import { tempDir } from './mgmt-helpers.js';

const auth = { userid: 'MAINT', password: 'SECRET' };
const tmp = tempDir('zvm-console-');
let sim: SimHost;
let server: SmapiServer;
let ssh: SimSshServer;
let mgmt: MgmtOps;
let hv: Hypervisor;
let bare: SmapiClient;
let shell: SshConnection;

const client = () => createSmapiClient({ host: '127.0.0.1', port: server.port, auth, poolSize: 2, timeoutMs: 5000, retries: 0 });

beforeAll(async () => {
  sim = createSimHost({ mgmtUserid: 'ZCCUID' });
  server = await createSmapiServer({ handler: sim, auth, port: 0 });
  ssh = await startSimSshServer({ sim, dataDir: join(tmp.dir, 'mgmt'), username: 'zcc', password: 'pw' });
  const endpoint = { host: '127.0.0.1', port: ssh.port, username: 'zcc', password: 'pw', hostKeySha256: ssh.hostKeySha256 };
  mgmt = createMgmtOps({ endpoint });
  hv = createSmapiHypervisor({ hostName: 'sim', caller: client(), mgmt });
  bare = client();
  shell = createSshConnection(endpoint, silentLogger());
  for (const userid of ['CONS01', 'CONS02', 'CONS03']) {
    await hv.createGuest({ userid, vcpus: 1, maxCpus: 2, memory: '1G', maxMemory: '2G' });
  }
  await hv.start('CONS01');
  await hv.start('CONS02');
});

afterAll(async () => {
  await shell.close();
  await bare.close();
  await hv.close();
  await ssh.close();
  await server.close();
  await sim.close();
  tmp.cleanup();
});

const logFile = (userid: string) => join(ssh.fsRoot, 'var/lib/zvmsdk/guests', userid, 'console.log');

describe('console output over SMAPI TCP plus the management guest', () => {
  it('Image_Console_Get returns no data on the wire and leaves a CON file in the management guest reader', async () => {
    const res = await bare.callFn('Image_Console_Get', 'CONS02', {});
    expect(res).toEqual({ rc: 0, rs: 0, output: {} });
    const list = await shell.exec('vmur list');
    expect(list.exitCode).toBe(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ORIGINID FILE CLASS RECORDS/);
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^CONS02 +\d{4} T CON \d{8} 001 NONE /)]);
    expect(sim.readerFiles('ZCCUID')).toEqual([expect.objectContaining({ origin: 'CONS02', type: 'CON', cls: 'T' })]);
  });

  it('answers the guest logon text, receives only that guest files, and empties them from the reader', async () => {
    const text = await hv.getConsoleOutput('CONS01');
    expect(text).toMatch(/^\d{8} LOGON CONS01 ON ZVMSIM Z\/VM V7\.1\.0$/m);
    expect(text).not.toContain('CONS02');
    expect(sim.readerFiles('ZCCUID').map((f) => f.origin)).toEqual(['CONS02']);
    expect(readFileSync(logFile('CONS01'), 'utf8')).toBe(text);
  });

  it('collects a file another client left in the reader', async () => {
    const text = await hv.getConsoleOutput('cons02');
    expect(text).toMatch(/LOGON CONS02 ON ZVMSIM/);
    expect(sim.readerFiles('ZCCUID')).toEqual([]);
  });

  it('answers the accumulated log on later calls: the same text when nothing new, then the new lines appended', async () => {
    const first = await hv.getConsoleOutput('CONS01');
    expect(await hv.getConsoleOutput('CONS01')).toBe(first);
    await hv.pause('CONS01');
    const later = await hv.getConsoleOutput('CONS01');
    expect(later.startsWith(first)).toBe(true);
    expect(later.slice(first.length)).toMatch(/^\d{8} CP STOP \(PAUSED\)\n$/);
    expect(sim.readerFiles('ZCCUID')).toEqual([]);
  });

  it('answers an empty string for a guest that is not logged on (Image_Console_Get 8/8)', async () => {
    expect(await hv.getConsoleOutput('CONS03')).toBe('');
    expect(existsSync(logFile('CONS03'))).toBe(false);
  });

  it('receives a file once: a second receive of the same spool id fails and the listing no longer shows it', async () => {
    await hv.unpause('CONS01');
    await bare.callFn('Image_Console_Get', 'CONS01', {});
    const id = /^CONS01 +(\d{4}) T CON/m.exec((await shell.exec('vmur list')).stdout)?.[1];
    expect(id).toBeDefined();
    const got = await shell.exec(`vmur re -t -O ${id}`);
    expect(got).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/CP BEGIN \(RESUMED\)\n$/) });
    expect((await shell.exec(`vmur re -t -O ${id}`)).exitCode).toBe(1);
    expect((await shell.exec('vmur list')).stdout).toBe('NO RDR FILES\n');
    expect((await shell.exec("vmcp spool reader class '*'")).exitCode).toBe(0);
  });

  it('removes the console log with the guest, so a new guest of the same name starts afresh', async () => {
    await hv.createGuest({ userid: 'CONS04', vcpus: 1, maxCpus: 2, memory: '1G', maxMemory: '2G' });
    await hv.start('CONS04');
    const before = await hv.getConsoleOutput('CONS04');
    expect(existsSync(logFile('CONS04'))).toBe(true);
    await hv.deleteGuest('CONS04');
    expect(existsSync(logFile('CONS04'))).toBe(false);
    await hv.createGuest({ userid: 'CONS04', vcpus: 1, maxCpus: 2, memory: '1G', maxMemory: '2G' });
    await hv.start('CONS04');
    const after = await hv.getConsoleOutput('CONS04');
    expect(after.match(/LOGON CONS04/g)).toHaveLength(1);
    expect(before.match(/LOGON CONS04/g)).toHaveLength(1);
  });
});

describe('console spool files in the simulator state file', () => {
  it('keeps reader files and what is still unclosed across a restart', async () => {
    const dir = tempDir('zvm-console-state-');
    try {
      const statePath = join(dir.dir, 'sim.json');
      const first = createSimHost({ statePath });
      await first.handle({ fn: 'Image_Create_DM', target: 'PERS01', params: { image_record_array: ['USER PERS01 PW 1G 2G G', 'INCLUDE OSDFLT'] } });
      await first.handle({ fn: 'Image_Activate', target: 'PERS01', params: {} });
      expect((await first.handle({ fn: 'Image_Console_Get', target: 'PERS01', params: {} })).rc).toBe(0);
      await first.handle({ fn: 'Image_Pause', target: 'PERS01', params: { action: 'pause' } });
      const files = first.readerFiles('OPNCLOUD');
      expect(files).toHaveLength(1);
      await first.close();

      const second = createSimHost({ statePath });
      expect(second.readerFiles('OPNCLOUD')).toEqual(files);
      expect((await second.handle({ fn: 'Image_Console_Get', target: 'PERS01', params: {} })).rc).toBe(0);
      const [, next] = second.readerFiles('OPNCLOUD');
      expect(next?.lines).toEqual([expect.stringMatching(/CP STOP \(PAUSED\)$/)]);
      expect(next?.spoolId).toBe(files[0]!.spoolId + 1);
      await second.close();
    } finally {
      dir.cleanup();
    }
  });
});
