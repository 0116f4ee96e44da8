/**
 * One SMAPI exchange over one connection (docs/smapi.md §1.1, §1.4): connect, send the whole
 * request, read the request id (phase 1), read the result (phase 2), close. Failures say how far
 * the exchange got, because a reply lost after the request id can be recovered with
 * Response_Recovery while an earlier failure means the request was never accepted.
 */
import net from 'node:net';
import tls from 'node:tls';
import { ZvmError } from '../../errors.js';
import { decodeResultRaw, MAX_FRAME_BYTES } from './codec.js';
import type { RawResult } from './codec.js';

export type ExchangeStage = 'connect' | 'send' | 'request-id' | 'result';
export type FailureKind = 'refused' | 'closed' | 'timeout' | 'aborted' | 'protocol' | 'io';

/** An exchange that did not produce a reply. `requestId` is set once phase 1 arrived. */
export class SmapiTransportError extends ZvmError {
  readonly stage: ExchangeStage;
  readonly kind: FailureKind;
  readonly requestId?: number;
  constructor(message: string, stage: ExchangeStage, kind: FailureKind, requestId?: number, options?: { cause?: unknown }) {
    super(kind === 'timeout' ? 'TIMEOUT' : 'UNAVAILABLE', message, options);
    this.stage = stage;
    this.kind = kind;
    this.requestId = requestId;
  }
}

export interface Endpoint {
  host: string;
  port: number;
  /** true, or node:tls options (e.g. `ca`, a CA bundle), for SMAPI's TLS request server. */
  tls?: boolean | tls.ConnectionOptions;
  /**
   * SHA-256 fingerprint of the server certificate (hex, colon-separated hex or SHA256:base64). When
   * set, that certificate is accepted even if no CA vouches for it (a self-signed SMAPI server) and
   * any other is refused before the request, which carries the password, is sent.
   */
  tlsCertSha256?: string;
  /** local address to connect from (a multi-homed node; tests tell replicas apart by it) */
  localAddress?: string;
  /**
   * Called right before the request is written; throwing refuses the exchange. Fencing: a replica whose
   * host Lease is past its renew deadline must not write, and this is the last moment it can still stop.
   */
  beforeSend?: () => void;
}

/** Canonical upper-case colon-separated hex, as node's `fingerprint256` prints it. */
export function normalizeCertFingerprint(text: string): string {
  const t = text.trim();
  const hex = t.startsWith('SHA256:') ? Buffer.from(t.slice(7), 'base64').toString('hex') : t.replace(/:/g, '');
  return (hex.toUpperCase().match(/../g) ?? []).join(':');
}

function connect(ep: Endpoint): net.Socket {
  const local = ep.localAddress ? { localAddress: ep.localAddress } : {};
  if (!ep.tls && !ep.tlsCertSha256) return net.connect({ host: ep.host, port: ep.port, ...local });
  const extra = ep.tls === true || ep.tls === undefined ? {} : ep.tls;
  // pinned: the fingerprint check below replaces the CA chain check
  const pinned = ep.tlsCertSha256 ? { rejectUnauthorized: false } : {};
  return tls.connect({ host: ep.host, port: ep.port, ...local, ...extra, ...pinned });
}

/** The pinned fingerprint's verdict on a TLS socket; undefined when it matches or nothing is pinned. */
function pinMismatch(ep: Endpoint, sock: net.Socket): string | undefined {
  if (!ep.tlsCertSha256) return undefined;
  const got = (sock as tls.TLSSocket).getPeerCertificate().fingerprint256;
  return got === normalizeCertFingerprint(ep.tlsCertSha256) ? undefined : `server certificate ${got} is not the pinned ${normalizeCertFingerprint(ep.tlsCertSha256)}`;
}

/** Sends `frame` and resolves with the raw phase-2 result. Always closes the socket. */
export function exchange(ep: Endpoint, frame: Buffer, timeoutMs: number, signal?: AbortSignal): Promise<RawResult> {
  return new Promise((resolve, reject) => {
    const sock = connect(ep);
    let stage: ExchangeStage = 'connect';
    let requestId: number | undefined;
    let buf: Buffer = Buffer.alloc(0);
    let settled = false;

    const finish = (err?: SmapiTransportError, result?: RawResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      sock.destroy();
      if (err) reject(err);
      else resolve(result as RawResult);
    };
    // settled first: every exchange ends with a 'close' that would build an error nobody reads
    const fail = (kind: FailureKind, message: string, cause?: unknown): void =>
      settled ? undefined : finish(new SmapiTransportError(`SMAPI ${stage}: ${message}`, stage, kind, requestId, { cause }));
    const onAbort = (): void => fail('aborted', 'call aborted');
    const timer = setTimeout(() => fail('timeout', `no answer within ${timeoutMs} ms`), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) return onAbort();

    const onData = (chunk: Buffer): void => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      if (requestId === undefined && buf.length >= 4) {
        requestId = buf.readUInt32BE(0);
        buf = buf.subarray(4);
        stage = 'result';
      }
      if (requestId === undefined || buf.length < 4) return;
      const length = buf.readUInt32BE(0);
      if (length < 12 || length > MAX_FRAME_BYTES) return fail('protocol', `reply length ${length} out of range`);
      if (buf.length < 4 + length) return;
      try {
        finish(undefined, decodeResultRaw(buf.subarray(0, 4 + length)));
      } catch (err) {
        fail('protocol', (err as Error).message, err);
      }
    };

    sock.once(ep.tls || ep.tlsCertSha256 ? 'secureConnect' : 'connect', () => {
      const mismatch = pinMismatch(ep, sock);
      if (mismatch) return fail('refused', mismatch);
      stage = 'send';
      try {
        ep.beforeSend?.();
      } catch (err) {
        return fail('aborted', (err as Error).message, err);
      }
      sock.write(frame, (err) => {
        if (err) return fail('io', err.message, err);
        if (stage === 'send') stage = 'request-id';
      });
    });
    sock.on('data', onData);
    sock.on('error', (err: NodeJS.ErrnoException) => fail(err.code === 'ECONNREFUSED' ? 'refused' : 'io', err.message, err));
    sock.on('close', () => fail('closed', 'connection closed before the reply was complete'));
  });
}
