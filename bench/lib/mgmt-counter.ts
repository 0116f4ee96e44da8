/**
 * Counts what the mgmt adapter asks of the management guest, for figure 1: each command it runs
 * (`vmcp <CP command>`, a zthin tool, `vmur`, `md5sum`) and each SFTP request it makes (a stat, a
 * readdir, a whole-file read or write, a streamed transfer) is one call. The adapter builds its
 * ssh2 Client internally, so the count is taken where every one of its requests passes: ssh2's
 * Client.prototype.exec/sftp/connect are wrapped for the bench's lifetime (production code is
 * untouched) and SFTP sessions are handed out behind a counting proxy. A method the adapter calls
 * on the session counts once, whatever ssh2 does underneath (readFile = open+fstat+read+close).
 */
import { posix } from 'node:path';
import ssh2, { type Client, type SFTPWrapper } from 'ssh2';

const { Client: SshClient } = ssh2;

/** SFTPWrapper methods that send a request to the server (EventEmitter plumbing is not counted). */
const SFTP_REQUESTS = new Set([
  'stat', 'lstat', 'fstat', 'setstat', 'fsetstat', 'readdir', 'opendir', 'readFile', 'writeFile', 'appendFile',
  'open', 'read', 'write', 'close', 'rename', 'unlink', 'mkdir', 'rmdir', 'realpath', 'readlink', 'symlink',
  'exists', 'createReadStream', 'createWriteStream', 'fastGet', 'fastPut',
]);

export interface MgmtCounter {
  /** calls per kind since the last reset, e.g. "mgmt unpackdiskimage", "mgmt vmcp QUERY", "mgmt sftp stat" */
  counts(): Record<string, number>;
  total(): number;
  reset(): void;
  /** puts ssh2 back as it was */
  uninstall(): void;
}

/** "vmcp 'Q' 'USERID'" → "vmcp Q"; "/opt/zthin/bin/unpackdiskimage 'X' …" → "unpackdiskimage"; "vmur 'punch' …" → "vmur punch". */
function commandKind(command: string): string {
  const words = command.split(/\s+/).map((w) => w.replace(/^'|'$/g, ''));
  const program = posix.basename(words[0] ?? '');
  return program === 'vmcp' || program === 'vmur' ? `${program} ${(words[1] ?? '').toUpperCase()}` : program;
}

export function installMgmtCounter(): MgmtCounter {
  let counts = new Map<string, number>();
  const bump = (kind: string) => counts.set(`mgmt ${kind}`, (counts.get(`mgmt ${kind}`) ?? 0) + 1);
  const proto = SshClient.prototype as unknown as Record<'exec' | 'sftp' | 'connect', (...args: unknown[]) => unknown>;
  const original = { exec: proto.exec, sftp: proto.sftp, connect: proto.connect };

  const counting = (session: SFTPWrapper): SFTPWrapper =>
    new Proxy(session, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        const fn = value as (...args: unknown[]) => unknown;
        if (typeof prop === 'string' && SFTP_REQUESTS.has(prop)) {
          return (...args: unknown[]) => {
            bump(`sftp ${prop}`);
            return fn.apply(target, args);
          };
        }
        return fn.bind(target);
      },
    });

  proto.exec = function exec(this: Client, command: unknown, ...rest: unknown[]) {
    bump(commandKind(String(command)));
    return original.exec.call(this, command, ...rest);
  };
  proto.sftp = function sftp(this: Client, cb: unknown) {
    bump('sftp session');
    const done = cb as (err: Error | undefined, s: SFTPWrapper) => void;
    return original.sftp.call(this, (err: Error | undefined, s: SFTPWrapper) => done(err, err ? s : counting(s)));
  };
  proto.connect = function connect(this: Client, ...args: unknown[]) {
    bump('ssh connect');
    return original.connect.apply(this, args);
  };

  return {
    counts: () => Object.fromEntries([...counts.entries()].sort(([a], [b]) => a.localeCompare(b))),
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    reset: () => {
      counts = new Map();
    },
    uninstall() {
      Object.assign(proto, original);
    },
  };
}
