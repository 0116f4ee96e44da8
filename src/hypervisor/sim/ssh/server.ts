/**
 * The simulated management guest over SSH (ssh2's Server) on loopback: the same surface the mgmt
 * adapter uses on a real one. Exec requests run the command set of commands.ts; the `sftp`
 * subsystem serves `<dataDir>/fs` as '/'. Deployed disk contents live in `<dataDir>/disks` until the
 * directory drops their minidisk.
 * Auth: a password and/or authorized public keys; the host key is generated unless given.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import ssh2, { type AuthContext, type AuthenticationType, type Connection, type ParsedKey } from 'ssh2';
import { InvalidInputError } from '../../../errors.js';
import type { Logger } from '../../../log.js';
import { silentLogger } from '../../../log.js';
import { generateEd25519KeyPair } from './ssh-keys.js';
import type { SimHost } from '../host.js';
import { createCommandRunner } from './commands.js';
import { createDiskImageTools } from './disk-images.js';
import { createRootedPaths } from './rooted-path.js';
import { serveSftp } from './sftp-server.js';
// ssh2 is CommonJS: Node's ESM loader gives it as a default export only
const { Server, utils } = ssh2;

export interface SimSshOptions {
  sim: SimHost;
  dataDir: string;
  host?: string;
  port?: number;
  username: string;
  password?: string;
  /** OpenSSH public keys ("ssh-ed25519 AAAA… comment") allowed to log in */
  authorizedKeys?: string[];
  /** OpenSSH private host key; generated (ed25519) when absent */
  hostKey?: string;
  /**
   * the management guest's own userid, for `vmcp q userid` and the reader `vmur` reads; default
   * the simulator's config.mgmtUserid (where Image_Console_Get sends console files)
   */
  mgmtUserid?: string;
  log?: Logger;
}

export interface SimSshServer {
  port: number;
  host: string;
  /** SHA-256 of the host key, hex; clients pin it (SshEndpoint.hostKeySha256) */
  hostKeySha256: string;
  /** where '/' of the SFTP side lives locally */
  fsRoot: string;
  close(): Promise<void>;
}

function parsed(key: string): ParsedKey {
  const k = utils.parseKey(key);
  if (k instanceof Error) throw new InvalidInputError(`cannot parse key: ${k.message}`, { cause: k });
  return Array.isArray(k) ? (k[0] as ParsedKey) : k;
}

function sameText(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

function authenticate(ctx: AuthContext, o: SimSshOptions, keys: ParsedKey[]): void {
  const userOk = sameText(ctx.username, o.username);
  if (ctx.method === 'password' && o.password !== undefined) {
    return userOk && sameText(ctx.password, o.password) ? ctx.accept() : ctx.reject();
  }
  if (ctx.method === 'publickey') {
    const key = keys.find((k) => k.type === ctx.key.algo && k.getPublicSSH().equals(ctx.key.data));
    if (!userOk || !key) return ctx.reject();
    if (!ctx.signature) return ctx.accept(); // the client asks whether this key would do
    return ctx.blob && key.verify(ctx.blob, ctx.signature, ctx.hashAlgo) ? ctx.accept() : ctx.reject();
  }
  const methods: AuthenticationType[] = [...(o.password !== undefined ? ['password' as const] : []), ...(keys.length > 0 ? ['publickey' as const] : [])];
  ctx.reject(methods);
}

export async function startSimSshServer(o: SimSshOptions): Promise<SimSshServer> {
  const log = (o.log ?? silentLogger()).child({ component: 'sim-ssh' });
  const fsRoot = join(o.dataDir, 'fs');
  const diskDir = join(o.dataDir, 'disks');
  mkdirSync(fsRoot, { recursive: true });
  mkdirSync(diskDir, { recursive: true });
  const hostKey = o.hostKey ?? generateEd25519KeyPair().private;
  const hostKeySha256 = createHash('sha256').update(parsed(hostKey).getPublicSSH()).digest('hex');
  const keys = (o.authorizedKeys ?? []).map(parsed);
  const paths = createRootedPaths(fsRoot);
  if (o.mgmtUserid && o.mgmtUserid.toUpperCase() !== o.sim.config.mgmtUserid) {
    log.warn({ mgmtUserid: o.mgmtUserid, simMgmtUserid: o.sim.config.mgmtUserid }, 'console files go to the simulator mgmtUserid reader, which vmur here does not read');
  }
  const disks = createDiskImageTools(o.sim, diskDir);
  // a deleted minidisk's contents leave the disk store before the deleting call is answered
  const stopForgetting = o.sim.onMinidisksGone((userid, gone) => disks.forget(userid, gone, log));
  const run = createCommandRunner({
    sim: o.sim,
    paths,
    disks,
    identity: { userid: (o.mgmtUserid ?? o.sim.config.mgmtUserid).toUpperCase(), systemName: o.sim.config.systemName },
  });
  const clients = new Set<Connection>();

  const server = new Server({ hostKeys: [hostKey] }, (client) => {
    clients.add(client);
    // as the mgmt client does (ssh-connection.ts): no Nagle wait between a packet's writes (ssh2 has it; its types do not)
    (client as Connection & { setNoDelay(noDelay: boolean): void }).setNoDelay(true);
    client.on('close', () => clients.delete(client));
    client.on('error', (err) => log.debug({ err }, 'ssh client error'));
    client.on('authentication', (ctx) => authenticate(ctx, o, keys));
    client.on('ready', () => {
      client.on('session', (acceptSession) => {
        const session = acceptSession();
        session.on('exec', (accept, _reject, info) => {
          const stream = accept();
          void run(info.command).then((res) => {
            log.debug({ command: info.command, exitCode: res.exitCode }, 'exec');
            if (res.stdout) stream.write(res.stdout);
            if (res.stderr) stream.stderr.write(res.stderr);
            stream.exit(res.exitCode);
            stream.end();
          });
        });
        session.on('sftp', (accept) => serveSftp(accept(), fsRoot));
      });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  log.info({ port: addr.port }, 'simulated management guest serving SSH');
  return {
    port: addr.port,
    host: addr.address,
    hostKeySha256,
    fsRoot,
    close: () =>
      new Promise<void>((resolve) => {
        stopForgetting();
        for (const c of clients) c.end();
        server.close(() => resolve());
      }),
  };
}
