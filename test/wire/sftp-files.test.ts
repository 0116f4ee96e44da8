/**
 * The mgmt adapter's SFTP helpers against the simulator's SFTP server over real SSH, counting the
 * requests they send (issue 23: deploy's calls): mkdir -p asks the deepest directory first, a directory
 * whose parent exists is ensured with one mkdir, and
 * rm -rf unlinks a file in one request and walks a directory by its readdir attributes.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ssh2, { type SFTPWrapper } from 'ssh2';
import { createSftpFiles, type SftpFiles } from '../../src/hypervisor/mgmt/sftp-files.js';
import { createSimHost } from '../../src/hypervisor/sim/index.js';
import { startSimSshServer, type SimSshServer } from '../../src/hypervisor/sim/ssh/index.js';
import { tempDir } from './mgmt-helpers.js';

const tmp = tempDir('zvm-sftp-files-');
const dataDir = join(tmp.dir, 'mgmt');
/** the simulator serves `<dataDir>/fs` as '/' */
const root = join(dataDir, 'fs');
let server: SimSshServer;
let client: InstanceType<typeof ssh2.Client>;
let files: SftpFiles;
let requests: string[] = [];

/** the session with every method call recorded (each one request, as the bench's counter counts) */
function counting(sftp: SFTPWrapper): SFTPWrapper {
  return new Proxy(sftp, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (typeof prop === 'string' && !['on', 'once', 'emit', 'removeListener'].includes(prop)) requests.push(prop);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

async function counted(work: () => Promise<unknown>): Promise<string[]> {
  requests = [];
  await work();
  return requests;
}

beforeAll(async () => {
  server = await startSimSshServer({ sim: createSimHost(), dataDir, username: 'zcc', password: 'pw' });
  client = new ssh2.Client();
  await new Promise<void>((resolve, reject) => {
    client.once('ready', () => resolve()).once('error', reject);
    client.connect({ host: '127.0.0.1', port: server.port, username: 'zcc', password: 'pw' });
  });
  const sftp = await new Promise<SFTPWrapper>((resolve, reject) => client.sftp((err, s) => (err ? reject(err) : resolve(s))));
  files = createSftpFiles(counting(sftp));
});

afterAll(async () => {
  client?.end();
  await server?.close();
  tmp.cleanup();
});

describe('SFTP helpers of the mgmt adapter', () => {
  it('mkdir -p: one stat when the directory exists, and only the missing levels are made', async () => {
    mkdirSync(join(root, 'repo', 'transport'), { recursive: true });
    expect(await counted(() => files.mkdirp('/repo/transport'))).toEqual(['stat']);
    expect(await counted(() => files.mkdirp('/repo/transport/a/b'))).toEqual(['stat', 'stat', 'stat', 'mkdir', 'mkdir']);
    expect(existsSync(join(root, 'repo', 'transport', 'a', 'b'))).toBe(true);
  });

  it('ensure a directory: one mkdir whether it is made or already there, mkdir -p when its parent is missing', async () => {
    mkdirSync(join(root, 'repo2'), { recursive: true });
    expect(await counted(() => files.ensureDir('/repo2/transport'))).toEqual(['mkdir']);
    expect(await counted(() => files.ensureDir('/repo2/transport'))).toEqual(['mkdir']);
    expect(await counted(() => files.ensureDir('/repo3/transport'))).toEqual(['mkdir', 'stat', 'stat', 'mkdir', 'mkdir']);
    expect(existsSync(join(root, 'repo2', 'transport')) && existsSync(join(root, 'repo3', 'transport'))).toBe(true);
  });

  it('rm -rf: a file in one request, a missing path in one, a tree by its readdir attributes', async () => {
    writeFileSync(join(root, 'staged'), 'x');
    expect(await counted(() => files.removeTree('/staged'))).toEqual(['unlink']);
    expect(existsSync(join(root, 'staged'))).toBe(false);
    expect(await counted(() => files.removeTree('/staged'))).toEqual(['unlink']);

    mkdirSync(join(root, 'tree', 'sub'), { recursive: true });
    writeFileSync(join(root, 'tree', 'one'), '1');
    writeFileSync(join(root, 'tree', 'sub', 'two'), '2');
    const asked = await counted(() => files.removeTree('/tree'));
    expect(existsSync(join(root, 'tree'))).toBe(false);
    expect(asked.filter((r) => r === 'lstat')).toHaveLength(1); // the top only: entries are known from readdir
    expect(readdirSync(root)).not.toContain('tree');
  });
});
