/** What the image operations share: the connection, the repository, the configured commands. */
import { InvalidInputError, isZvmError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { ImageError, ImageRs, type ImageRecord } from '../image-port.js';
import { HEADER_SIZE, parseImageHeader, rawDiskSizeUnits } from './image-header.js';
import { checkRemoteHost, shellQuote } from './paths.js';
import type { Repository } from './repository.js';
import { createSftpFiles, isNoSuchFile, type SftpFiles } from './sftp-files.js';
import type { TransferCounter } from './metrics.js';
import type { HttpSourcePolicy } from './transfer.js';
import { createSshConnection, type ExecResult, type SshConnection, type SshEndpoint } from './ssh-connection.js';

/** How the adapter reaches user@host for remote_host transfers. */
export interface RemoteHostAuth {
  port?: number;
  privateKey?: string | Buffer;
  password?: string;
  /** host keys remote hosts may present (fingerprints or known_hosts lines); none: every transfer is refused */
  hostKeys?: string[];
}

export interface MgmtContext {
  ssh: SshConnection;
  repo: Repository;
  log: Logger;
  /** local directories file:// URLs may read from or write to */
  allowedDirs: readonly string[];
  /** size cap, redirect limit and host allow-list of http(s) image imports */
  http: HttpSourcePolicy;
  remoteAuth: RemoteHostAuth;
  commands: { vmcp: string; vmur: string; zthinBin: string };
  /** counts the image bytes copied (zvm_image_transfer_bytes_total); absent: not counted */
  transferred?: TransferCounter;
  files(): Promise<SftpFiles>;
  /**
   * Runs `write` (which creates a file in the repository's transport folder) with that folder in place:
   * it is made once per process, and again when a write finds it gone (SFTP status 2).
   */
  intoTransport<T>(files: SftpFiles, write: () => Promise<T>): Promise<T>;
  run(argv: string[], opts?: { signal?: AbortSignal }): Promise<ExecResult>;
  /** Opens a connection to user@host; the caller closes it. */
  remote(remoteHost: string): SshConnection;
  /**
   * md5, units and size of a file in the repository (feilong's post-import checks): units from
   * the zthin header, or for a raw (RHCOS) image from its size in bytes.
   */
  inspect(path: string, fn: string, opts?: { signal?: AbortSignal; raw?: boolean }): Promise<Pick<ImageRecord, 'md5sum' | 'diskSizeUnits' | 'diskType' | 'sizeBytes'>>;
}

export function createMgmtContext(o: Omit<MgmtContext, 'files' | 'intoTransport' | 'run' | 'remote' | 'inspect'> & { remoteHostKeySha256?: string }): MgmtContext {
  const files = async () => createSftpFiles(await o.ssh.sftp());
  const run = (argv: string[], opts?: { signal?: AbortSignal }) => o.ssh.exec(argv.map((a, i) => (i === 0 ? a : shellQuote(a))).join(' '), opts);
  let transportMade = false;
  const makeTransport = async (f: SftpFiles) => {
    await f.ensureDir(o.repo.transportDir());
    transportMade = true;
  };
  return {
    ...o,
    files,
    async intoTransport(f, write) {
      if (!transportMade) await makeTransport(f);
      try {
        return await write();
      } catch (err) {
        if (!isNoSuchFile(err)) throw err;
        await makeTransport(f);
        return write();
      }
    },
    run,
    remote(remoteHost) {
      const { user, host } = checkRemoteHost(remoteHost);
      const endpoint: SshEndpoint = { host, port: o.remoteAuth.port ?? 22, username: user, privateKey: o.remoteAuth.privateKey, password: o.remoteAuth.password,
        hostKey: { trusted: o.remoteAuth.hostKeys } };
      return createSshConnection(endpoint, o.log);
    },
    async inspect(path, fn, { signal, raw } = {}) {
      const sum = await run(['md5sum', path], { signal });
      const md5 = /^([0-9a-f]{32})\b/.exec(sum.stdout.trim());
      if (sum.exitCode !== 0 || !md5) throw new ImageError(fn, ImageRs.md5Failed, 'Image import error: Failed to calculate the md5sum of the image');
      const f = await files();
      const st = await f.stat(path);
      if (raw) return { md5sum: md5[1]!, diskSizeUnits: rawDiskSizeUnits(st.size), diskType: 'CKD', sizeBytes: st.size };
      const header = parseImageHeader(await f.readHead(path, HEADER_SIZE), fn);
      return { md5sum: md5[1]!, diskSizeUnits: header.diskSizeUnits, diskType: header.diskType, sizeBytes: st.size };
    },
  };
}

/** Keeps typed errors (bad input, image codes) and wraps anything else in the given image code. */
export function asImageError(err: unknown, fn: string, rs: number, text: (msg: string) => string): Error {
  if (err instanceof ImageError || err instanceof InvalidInputError) return err;
  if (isZvmError(err) && err.code !== 'HYPERVISOR') return err;
  return new ImageError(fn, rs, text((err as Error)?.message ?? String(err)), { cause: err });
}
