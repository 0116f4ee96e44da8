/**
 * One SSH connection (ssh2 Client) to the management guest or a remote host: lazy connect,
 * reconnect after a drop, commands through `exec`, files through one cached SFTP session.
 */
import type { Client, ConnectConfig, SFTPWrapper } from 'ssh2';
import { HypervisorError, TimeoutError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { createHostVerifier, type HostKeyPolicy, type HostVerifier } from './host-key.js';

type Ssh2 = typeof import('ssh2');
let ssh2Loaded: Promise<Ssh2> | undefined;
/**
 * ssh2 and its crypto load with the first connection (issue 38): about 7 MB a process that has no
 * management guest never uses. It is CommonJS: Node's ESM loader gives it as a default export only.
 */
const loadSsh2 = (): Promise<Ssh2> => (ssh2Loaded ??= import('ssh2').then((m) => (m as { default?: Ssh2 }).default ?? m));

export interface SshEndpoint {
  host: string;
  port: number;
  username: string;
  privateKey?: string | Buffer;
  password?: string;
  /** SHA-256 of the host key (hex or SHA256:base64); shorthand for hostKey.trusted */
  hostKeySha256?: string;
  /** which host keys are accepted; with neither this nor hostKeySha256 every connection is refused */
  hostKey?: HostKeyPolicy;
  readyTimeoutMs?: number;
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface SshConnection {
  exec(command: string, opts?: { signal?: AbortSignal; timeoutMs?: number }): Promise<ExecResult>;
  sftp(): Promise<SFTPWrapper>;
  /** Connects (if not connected) so that the host key is checked; answers the accepted key's fingerprint. */
  verifyHost(): Promise<string | undefined>;
  close(): Promise<void>;
}

/** Output beyond this is dropped: command answers are short, file data goes through SFTP. */
const MAX_OUTPUT = 1 << 20;
const DEFAULT_EXEC_TIMEOUT_MS = 10 * 60_000;

/** The endpoint's host-key policy, the hostKeySha256 shorthand included. */
function hostKeyPolicy(e: SshEndpoint): HostKeyPolicy {
  const trusted = [...(e.hostKey?.trusted ?? []), ...(e.hostKeySha256 ? [e.hostKeySha256] : [])];
  return { ...e.hostKey, trusted };
}

function connectConfig(e: SshEndpoint, verifier: HostVerifier): ConnectConfig {
  return {
    host: e.host,
    port: e.port,
    username: e.username,
    ...(e.privateKey ? { privateKey: e.privateKey } : {}),
    ...(e.password ? { password: e.password } : {}),
    readyTimeout: e.readyTimeoutMs ?? 20_000,
    hostVerifier: (key: Buffer) => verifier.verify(key),
  };
}

function sshError(what: string, err: unknown): HypervisorError {
  return new HypervisorError('ssh', 3, 0, `${what}: ${(err as Error)?.message ?? String(err)}`, { retryable: true, cause: err });
}

export function createSshConnection(endpoint: SshEndpoint, log: Logger): SshConnection {
  let client: Promise<Client> | undefined;
  let sftp: Promise<SFTPWrapper> | undefined;
  const verifier = createHostVerifier(hostKeyPolicy(endpoint), endpoint.host, endpoint.port, `${endpoint.username}@${endpoint.host}:${endpoint.port}`);

  function connect(): Promise<Client> {
    if (client) return client;
    const ready = loadSsh2().then((ssh2) => open(new ssh2.Client()));
    client = ready;
    ready.catch(() => {
      client = undefined;
    });
    return ready;
  }

  function open(c: Client): Promise<Client> {
    const ready = new Promise<Client>((resolve, reject) => {
      c.once('ready', () => {
        // an SSH packet leaves in several writes (length, payload, MAC): Nagle would hold each one for the
        // peer's delayed ACK (~40 ms), which caps an SFTP copy at a few hundred KiB/s
        c.setNoDelay(true);
        resolve(c);
      });
      // a refused host key is its own, terminal error: no password or key was sent
      c.once('error', (err) => reject(verifier.lastRefusal() ?? sshError(`cannot reach ${endpoint.username}@${endpoint.host}:${endpoint.port}`, err)));
    });
    c.on('close', () => {
      // the next call reconnects
      client = undefined;
      sftp = undefined;
    });
    c.on('error', (err) => log.debug({ err, host: endpoint.host }, 'ssh connection error'));
    verifier.reset();
    c.connect(connectConfig(endpoint, verifier));
    return ready;
  }

  async function exec(command: string, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ExecResult> {
    const c = await connect();
    return new Promise<ExecResult>((resolve, reject) => {
      c.exec(command, (err, stream) => {
        if (err) return reject(sshError(`cannot run a command on ${endpoint.host}`, err));
        const out: Buffer[] = [];
        const errOut: Buffer[] = [];
        let size = 0;
        const keep = (into: Buffer[]) => (d: Buffer) => {
          if (size < MAX_OUTPUT) into.push(d);
          size += d.length;
        };
        const stop = (e: Error) => {
          cleanup();
          stream.close();
          reject(e);
        };
        const timer = setTimeout(() => stop(new TimeoutError(`command timed out on ${endpoint.host}`)), opts.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS);
        const onAbort = () => stop(new TimeoutError('command aborted'));
        const cleanup = () => {
          clearTimeout(timer);
          opts.signal?.removeEventListener('abort', onAbort);
        };
        opts.signal?.addEventListener('abort', onAbort, { once: true });
        stream.on('data', keep(out));
        stream.stderr.on('data', keep(errOut));
        stream.on('close', (code: number | null) => {
          cleanup();
          resolve({ exitCode: code ?? 255, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(errOut).toString('utf8') });
        });
      });
    });
  }

  async function openSftp(): Promise<SFTPWrapper> {
    const c = await connect();
    return new Promise<SFTPWrapper>((resolve, reject) => {
      c.sftp((err, s) => {
        if (err) return reject(sshError(`cannot open SFTP on ${endpoint.host}`, err));
        s.on('close', () => {
          sftp = undefined;
        });
        // a connection closing under requests in flight fails each of them through its own callback; the
        // channel's 'error' event for the same close must not become an unhandled error of the process
        s.on('error', (channelErr: Error) => log.debug({ err: channelErr, host: endpoint.host }, 'sftp channel error'));
        resolve(s);
      });
    });
  }

  return {
    exec,
    sftp() {
      if (!sftp) {
        sftp = openSftp();
        sftp.catch(() => {
          sftp = undefined;
        });
      }
      return sftp;
    },
    async verifyHost() {
      await connect();
      return verifier.accepted();
    },
    async close() {
      const pending = client;
      client = undefined;
      sftp = undefined;
      if (!pending) return;
      const c = await pending.catch(() => undefined);
      if (!c) return;
      await new Promise<void>((resolve) => {
        c.once('close', () => resolve());
        c.end();
      });
    },
  };
}
