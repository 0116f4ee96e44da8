/**
 * `kubectl zvm --server`: a standalone instance's admin API (the one `zvm-operator get/apply` use),
 * seen as a StateStore so that the verbs run the same code against it as against a cluster.
 */
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { resolveKind, type Resource } from '../../api/index.js';
import { AlreadyExistsError, ConflictError, GoneError, InvalidInputError, InvalidSpecError, NotFoundError, UnauthorizedError, ZvmError, type SchemaIssue } from '../../errors.js';
import type { ListResult, MergePatch, ObjectKey, StateStore, WatchEvent, WatchOptions } from '../../store/port.js';

export interface AdminApiOptions {
  server: string;
  adminTokenFile?: string;
  token?: string;
}

export interface AdminApi {
  request<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** a streaming GET (a watch): resolves once the server has answered, with the body's lines */
  stream(path: string, signal: AbortSignal): Promise<AsyncIterable<string>>;
  /** a raw body (a file being uploaded), with its length */
  upload<T>(path: string, body: Readable, length: number): Promise<T>;
}

interface ErrorPayload { error?: string; message?: string; errmsg?: string; issues?: SchemaIssue[] }

/** The admin API's error body back into the project's error classes (what GuestService expects). */
function errorOf(status: number, payload: ErrorPayload): Error {
  const message = payload.message ?? payload.errmsg ?? `request failed with HTTP ${status}`;
  switch (payload.error) {
    case 'NOT_FOUND': return new NotFoundError(message);
    case 'ALREADY_EXISTS': return new AlreadyExistsError(message);
    case 'CONFLICT': return new ConflictError(message);
    case 'INVALID_SPEC': return new InvalidSpecError(message, payload.issues ?? []);
    case 'INVALID_INPUT': return new InvalidInputError(message);
    case 'UNAUTHORIZED': return new UnauthorizedError(message);
    case 'GONE': return new GoneError(message);
  }
  return status === 404 ? new NotFoundError(message) : new ZvmError('INTERNAL', message);
}

export function createAdminApi(opts: AdminApiOptions): AdminApi {
  const headers: Record<string, string> = {};
  if (opts.adminTokenFile) headers['x-admin-token'] = readFileSync(opts.adminTokenFile, 'utf8').trim();
  if (opts.token) headers['x-auth-token'] = opts.token;

  async function call(method: string, path: string, init: { headers: Record<string, string>; body?: BodyInit; duplex?: 'half'; signal?: AbortSignal }): Promise<Response> {
    try {
      return await fetch(new URL(path, opts.server), { method, ...init, headers: { ...headers, ...init.headers } } as RequestInit);
    } catch (err) {
      if (init.signal?.aborted) throw err;
      throw new ZvmError('UNAVAILABLE', `cannot reach ${opts.server} (is \`zvm-operator standalone\` running?)`, { cause: err });
    }
  }

  async function send<T>(method: string, path: string, init: { headers: Record<string, string>; body?: BodyInit; duplex?: 'half' }): Promise<T> {
    const res = await call(method, path, init);
    const text = await res.text();
    let payload: unknown;
    try {
      payload = text ? JSON.parse(text) : undefined;
    } catch {
      payload = { message: text };
    }
    if (!res.ok) throw errorOf(res.status, (payload ?? {}) as ErrorPayload);
    return payload as T;
  }

  return {
    request: (method, path, body) =>
      send(method, path, body === undefined ? { headers: {} } : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    async stream(path, signal) {
      const res = await call('GET', path, { headers: {}, signal });
      if (!res.ok || !res.body) throw errorOf(res.status, (await res.json().catch(() => ({}))) as ErrorPayload);
      return lines(res.body);
    },
    upload: (path, body, length) =>
      send('PUT', path, { headers: { 'content-type': 'application/octet-stream', 'content-length': String(length) }, body: body as unknown as BodyInit, duplex: 'half' }),
  };
}

async function* lines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of body) {
    rest += decoder.decode(chunk, { stream: true });
    const parts = rest.split('\n');
    rest = parts.pop() ?? '';
    yield* parts.filter(Boolean);
  }
}

function resourcePath(kind: string, key?: ObjectKey, query: Record<string, string | undefined> = {}): string {
  const def = resolveKind(kind);
  if (!def) throw new InvalidInputError(`unknown kind ${kind}`);
  const params = new URLSearchParams(Object.entries({ namespace: key?.namespace, ...query }).filter((e): e is [string, string] => e[1] !== undefined));
  const qs = params.size > 0 ? `?${params}` : '';
  return `/resources/${def.plural}${key ? `/${encodeURIComponent(key.name)}` : ''}${qs}`;
}

/**
 * The StateStore subset the verbs use. A watch is the admin API's /watch stream; as with KubeStore,
 * a write waits until every watch being started is in place, so no change made after watch() is missed.
 */
export function createAdminStore(api: AdminApi): StateStore {
  const unsupported = (what: string) => () => Promise.reject(new ZvmError('NOT_SUPPORTED', `${what} is not offered by the admin API`));
  const starting = new Set<Promise<unknown>>();
  const beforeWrite = async () => void (await Promise.all([...starting]));

  function startWatch(kind: string, options: WatchOptions, signal: AbortSignal): Promise<AsyncIterable<string>> {
    const params = new URLSearchParams(Object.entries({ namespace: options.namespace, resourceVersion: options.resourceVersion }).filter((e): e is [string, string] => Boolean(e[1])));
    const opened = api.stream(`/watch/${resolveKind(kind)?.plural ?? kind}${params.size > 0 ? `?${params}` : ''}`, signal);
    const settled = opened.then(() => undefined, () => undefined);
    starting.add(settled);
    void settled.then(() => starting.delete(settled));
    return opened;
  }

  return {
    async get<T extends Resource>(kind: string, key: ObjectKey) {
      try {
        return await api.request<T>('GET', resourcePath(kind, key));
      } catch (err) {
        if (err instanceof NotFoundError) return undefined;
        throw err;
      }
    },
    async list<T extends Resource>(kind: string, options: { namespace?: string } = {}): Promise<ListResult<T>> {
      const def = resolveKind(kind);
      const qs = options.namespace ? `?namespace=${encodeURIComponent(options.namespace)}` : '';
      return { items: await api.request<T[]>('GET', `/resources/${def?.plural ?? kind}${qs}`), resourceVersion: '' };
    },
    async create<T extends Resource>(obj: T) {
      await beforeWrite();
      return api.request<T>('POST', resourcePath(obj.kind), obj);
    },
    async patch<T extends Resource>(kind: string, key: ObjectKey, patch: MergePatch, options: { resourceVersion?: string } = {}) {
      await beforeWrite();
      return api.request<T>('PATCH', resourcePath(kind, key, { resourceVersion: options.resourceVersion }), patch);
    },
    delete: async (kind: string, key: ObjectKey) => {
      await beforeWrite();
      await api.request('DELETE', resourcePath(kind, key));
    },
    update: unsupported('update'),
    updateStatus: unsupported('a status write'),
    patchStatus: unsupported('a status write'),
    watch<T extends Resource>(kind: string, options: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
      const stop = new AbortController();
      const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
      const opened = startWatch(kind, options, signal);
      return (async function* events(): AsyncGenerator<WatchEvent<T>> {
        try {
          for await (const line of await opened) {
            const ev = JSON.parse(line) as WatchEvent<T> | ({ type: 'ERROR' } & ErrorPayload);
            if (ev.type === 'ERROR') throw errorOf(500, ev as ErrorPayload);
            yield ev as WatchEvent<T>;
          }
        } catch (err) {
          if (!signal.aborted) throw err;
        } finally {
          stop.abort();
        }
      })();
    },
    close: async () => undefined,
  };
}
