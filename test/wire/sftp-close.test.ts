/**
 * An SFTP stream closes its remote handle once the copy is done, or once it is destroyed after a failed
 * one; a connection that drops right then fails that close ("No response from server") after the copy's
 * own listeners are gone. That must not become an unhandled 'error' of the process (the replay's
 * guest_deploy saw one). Real ssh2 client against the simulator's SSH server, which here drops every
 * client as soon as the copy has returned.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { createSshConnection } from '../../src/hypervisor/mgmt/ssh-connection.js';
import { copyStream, openSftpSink, sftpSource } from '../../src/hypervisor/mgmt/transfer.js';
import { createSimHost } from '../../src/hypervisor/sim/index.js';
import { startSimSshServer, type SimSshServer } from '../../src/hypervisor/sim/ssh/index.js';
import { silentLogger } from '../../src/log.js';
import { tempDir } from './mgmt-helpers.js';

const tmp = tempDir('zvm-sftp-close-');
const ROUNDS = 10;
const data = Buffer.alloc(48 * 1024, 7);
const unhandled: unknown[] = [];
const onUncaught = (err: unknown) => unhandled.push(err);

beforeAll(() => process.on('uncaughtException', onUncaught));
afterAll(() => {
  process.off('uncaughtException', onUncaught);
  tmp.cleanup();
});

async function server(): Promise<SimSshServer> {
  const ssh = await startSimSshServer({ sim: createSimHost(), dataDir: join(tmp.dir, `mgmt-${Math.random()}`), username: 'zcc', password: 'pw' });
  writeFileSync(join(ssh.fsRoot, 'source.bin'), data);
  return ssh;
}

const connect = (ssh: SimSshServer) =>
  createSshConnection({ host: '127.0.0.1', port: ssh.port, username: 'zcc', password: 'pw', hostKeySha256: ssh.hostKeySha256 }, silentLogger());

function collect(into: Buffer[]): Writable {
  return new Writable({ write: (chunk: Buffer, _e, cb) => { into.push(chunk); cb(); } });
}

/** What the server-side drop leaves: the connection closed, and a moment for late callbacks to run. */
async function dropped(ssh: SimSshServer): Promise<void> {
  await ssh.close();
  await new Promise((r) => setTimeout(r, 50));
}

it('reads a file over SFTP; the connection dropping as the copy returns raises no unhandled error', async () => {
  for (let i = 0; i < ROUNDS; i++) {
    const ssh = await server();
    const got: Buffer[] = [];
    const copied = await copyStream(await sftpSource(await connect(ssh).sftp(), '/source.bin'), collect(got));
    await dropped(ssh);
    expect([i, copied.bytes, Buffer.concat(got).equals(data)]).toEqual([i, data.length, true]);
  }
  expect(unhandled).toEqual([]);
}, 120_000);

it('writes a file over SFTP; the connection dropping as the copy returns raises no unhandled error', async () => {
  for (let i = 0; i < ROUNDS; i++) {
    const ssh = await server();
    const copied = await copyStream({ stream: Readable.from([data]), total: data.length }, await openSftpSink(await connect(ssh).sftp(), '/out.bin'));
    await dropped(ssh);
    expect([i, copied.bytes]).toEqual([i, data.length]);
  }
  expect(unhandled).toEqual([]);
}, 120_000);

it('destroys a half-read SFTP source; the connection dropping then raises no unhandled error', async () => {
  for (let i = 0; i < ROUNDS; i++) {
    const ssh = await server();
    const source = await sftpSource(await connect(ssh).sftp(), '/source.bin');
    await new Promise((r) => source.stream.once('data', r));
    source.stream.destroy();
    await dropped(ssh);
    expect([i, source.stream.destroyed]).toEqual([i, true]);
  }
  expect(unhandled).toEqual([]);
}, 120_000);
