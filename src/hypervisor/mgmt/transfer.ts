/**
 * Streamed copies between the operator's side, HTTP servers, remote hosts and the management
 * guest. Data flows chunk by chunk through a meter that hashes and counts it; nothing holds a
 * whole image in memory.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { SFTPWrapper } from 'ssh2';
import { InvalidInputError } from '../../errors.js';
import { ImageError, ImageRs, type TransferProgress } from '../image-port.js';
import { openConfinedForRead, openConfinedForWrite } from './local-files.js';

export interface Source {
  stream: Readable;
  total?: number;
}

export interface CopyResult {
  bytes: number;
  md5: string;
}

export interface CopyOptions {
  signal?: AbortSignal;
  onProgress?: (p: TransferProgress) => void;
  /** the copy fails with SizeLimitError as soon as more bytes than this arrive */
  maxBytes?: number;
  /** told each chunk's size as it passes (the transfer metrics) */
  onBytes?: (n: number) => void;
}

/** A transfer larger than its configured cap (bad input: the caller sent or named too much). */
export class SizeLimitError extends InvalidInputError {
  constructor(readonly limit: number) {
    super(`the data is larger than the limit of ${limit} bytes`);
  }
}

/** Progress is reported at most this often (bytes), plus once at the end. */
const PROGRESS_STEP = 4 << 20;

export async function copyStream(source: Source, sink: Writable, opts: CopyOptions = {}): Promise<CopyResult> {
  const hash = createHash('md5');
  let bytes = 0;
  let reported = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      if (opts.maxBytes !== undefined && bytes > opts.maxBytes) {
        cb(new SizeLimitError(opts.maxBytes));
        return;
      }
      hash.update(chunk);
      opts.onBytes?.(chunk.length);
      if (opts.onProgress && bytes - reported >= PROGRESS_STEP) {
        reported = bytes;
        opts.onProgress({ bytes, total: source.total });
      }
      cb(null, chunk);
    },
  });
  if (opts.maxBytes !== undefined && source.total !== undefined && source.total > opts.maxBytes) {
    source.stream.destroy();
    sink.destroy();
    throw new SizeLimitError(opts.maxBytes);
  }
  await pipeline(source.stream, meter, sink, ...(opts.signal ? [{ signal: opts.signal }] : []));
  opts.onProgress?.({ bytes, total: source.total });
  return { bytes, md5: hash.digest('hex') };
}

/** A local file inside the directories, opened without following symlinks (local-files.ts). */
export async function confinedFileSource(path: string, dirs: readonly string[]): Promise<Source> {
  const opened = await openConfinedForRead(path, dirs);
  return { stream: opened.handle.createReadStream(), total: opened.size };
}

export async function confinedFileSink(path: string, dirs: readonly string[]): Promise<Writable> {
  return (await openConfinedForWrite(path, dirs)).handle.createWriteStream();
}

/** Limits on http(s) image sources (operator configuration; README "Image directories"). */
export interface HttpSourcePolicy {
  /** largest image accepted, in bytes (Content-Length and the bytes actually received) */
  maxBytes?: number;
  /** redirects followed before giving up; 0 follows none */
  maxRedirects?: number;
  /** when set, only these host names (exact, case-insensitive; `*.example.com` for subdomains) may be fetched, redirect targets included */
  allowedHosts?: readonly string[];
}

export const HTTP_DEFAULTS = { maxRedirects: 3 } as const;

const httpError = (reason: string, cause?: unknown) =>
  new ImageError('image_import', ImageRs.httpFailed, `Import image from http server failed with reason ${reason}`, { cause });

function hostAllowed(host: string, allowed: readonly string[] | undefined): boolean {
  if (!allowed || allowed.length === 0) return true;
  const h = host.toLowerCase();
  return allowed.some((a) => {
    const want = a.toLowerCase();
    return want.startsWith('*.') ? h.endsWith(want.slice(1)) : h === want;
  });
}

function checkUrl(url: URL, policy: HttpSourcePolicy): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw httpError(`${url.protocol} is not http(s)`);
  if (!hostAllowed(url.hostname, policy.allowedHosts)) throw httpError(`host ${url.hostname} is not in the allowed hosts of image imports`);
}

/** One request; redirects are followed by hand so that each hop is checked against the policy. */
async function fetchFollowing(url: string, policy: HttpSourcePolicy, signal?: AbortSignal): Promise<Response> {
  const limit = policy.maxRedirects ?? HTTP_DEFAULTS.maxRedirects;
  let current = new URL(url);
  for (let hop = 0; ; hop++) {
    checkUrl(current, policy);
    let res: Response;
    try {
      res = await fetch(current, { signal, redirect: 'manual' });
    } catch (err) {
      throw httpError((err as Error).message, err);
    }
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) return res;
    await res.body?.cancel();
    if (hop >= limit) throw httpError(`more than ${limit} redirects`);
    current = new URL(location, current);
  }
}

/** http:// and https:// within the policy; any answer but 2xx is image rs9, so is an announced size over the cap. */
export async function httpSource(url: string, signal?: AbortSignal, policy: HttpSourcePolicy = {}): Promise<Source> {
  const res = await fetchFollowing(url, policy, signal);
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    throw httpError(`HTTP ${res.status}`);
  }
  const length = Number(res.headers.get('content-length'));
  const total = Number.isFinite(length) && length > 0 ? length : undefined;
  if (policy.maxBytes !== undefined && total !== undefined && total > policy.maxBytes) {
    await res.body.cancel();
    throw httpError(`the image is ${total} bytes, larger than the limit of ${policy.maxBytes} bytes`);
  }
  return { stream: Readable.fromWeb(res.body as unknown as WebReadableStream<Uint8Array>), total };
}

export async function sftpSource(sftp: SFTPWrapper, path: string): Promise<Source> {
  const total = await new Promise<number>((resolve, reject) => sftp.stat(path, (err, st) => (err ? reject(err) : resolve(st.size))));
  return { stream: afterUseQuiet(sftp.createReadStream(path)), total };
}

export function sftpSink(sftp: SFTPWrapper, path: string): Writable {
  return afterUseQuiet(sftp.createWriteStream(path, { flags: 'w', mode: 0o644 }));
}

/**
 * An SFTP stream closes its remote handle after the copy (or after a destroy): when the connection drops
 * first, that close fails once the copy's own listeners are gone, and an 'error' nobody listens to would
 * end the process. Errors while the stream is in use still reach the pipeline, which listens itself.
 */
function afterUseQuiet<T extends NodeJS.EventEmitter>(stream: T): T {
  stream.on('error', () => undefined);
  return stream;
}

/** The sink once the file is open: a missing folder shows here (SFTP status 2), before a byte of the source is read. */
export async function openSftpSink(sftp: SFTPWrapper, path: string): Promise<Writable> {
  const sink = sftpSink(sftp, path);
  await once(sink, 'open');
  return sink;
}
