/**
 * `kubectl zvm --server`: a standalone instance's admin API (the one `zvm-operator get/apply` use),
 * seen as a StateStore so that the verbs run the same code against it as against a cluster.
 */
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { resolveKind, type Resource } from '../../api/index.js';
import { AlreadyExistsError, ConflictError, InvalidInputError, InvalidSpecError, NotFoundError, UnauthorizedError, ZvmError, type SchemaIssue } from '../../errors.js';
import type { ListResult, MergePatch, ObjectKey, StateStore, WatchEvent } from '../../store/port.js';

export interface AdminApiOptions {
  server: string;
  adminTokenFile?: string;
  token?: string;
}

export interface AdminApi {
  request<T>(method: string, path: string, body?: unknown): Promise<T>;
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
  }
  return status === 404 ? new NotFoundError(message) : new ZvmError('INTERNAL', message);
}

export function createAdminApi(opts: AdminApiOptions): AdminApi {
  const headers: Record<string, string> = {};
  if (opts.adminTokenFile) headers['x-admin-token'] = readFileSync(opts.adminTokenFile, 'utf8').trim();
  if (opts.token) headers['x-auth-token'] = opts.token;

  async function send<T>(method: string, path: string, init: { headers: Record<string, string>; body?: BodyInit; duplex?: 'half' }): Promise<T> {
    let res: Response;
    try {
      res = await fetch(new URL(path, opts.server), { method, ...init, headers: { ...headers, ...init.headers } } as RequestInit);
    } catch (err) {
      throw new ZvmError('UNAVAILABLE', `cannot reach ${opts.server} (is \`zvm-operator standalone\` running?)`, { cause: err });
    }
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
    upload: (path, body, length) =>
      send('PUT', path, { headers: { 'content-type': 'application/octet-stream', 'content-length': String(length) }, body: body as unknown as BodyInit, duplex: 'half' }),
  };
}

function resourcePath(kind: string, key?: ObjectKey, query: Record<string, string | undefined> = {}): string {
  const def = resolveKind(kind);
  if (!def) throw new InvalidInputError(`unknown kind ${kind}`);
  const params = new URLSearchParams(Object.entries({ namespace: key?.namespace, ...query }).filter((e): e is [string, string] => e[1] !== undefined));
  const qs = params.size > 0 ? `?${params}` : '';
  return `/resources/${def.plural}${key ? `/${encodeURIComponent(key.name)}` : ''}${qs}`;
}

/**
 * The StateStore subset the verbs use. There is no watch over the admin API: watch() yields nothing
 * until aborted, and the waits (rest/guests/wait.ts) fall back to their poll.
 */
export function createAdminStore(api: AdminApi): StateStore {
  const unsupported = (what: string) => () => Promise.reject(new ZvmError('NOT_SUPPORTED', `${what} is not offered by the admin API`));
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
    create: <T extends Resource>(obj: T) => api.request<T>('POST', resourcePath(obj.kind), obj),
    patch: <T extends Resource>(kind: string, key: ObjectKey, patch: MergePatch, options: { resourceVersion?: string } = {}) =>
      api.request<T>('PATCH', resourcePath(kind, key, { resourceVersion: options.resourceVersion }), patch),
    delete: async (kind: string, key: ObjectKey) => void (await api.request('DELETE', resourcePath(kind, key))),
    update: unsupported('update'),
    updateStatus: unsupported('a status write'),
    patchStatus: unsupported('a status write'),
    watch<T extends Resource>(_kind: string, options: { signal?: AbortSignal } = {}): AsyncIterable<WatchEvent<T>> {
      const signal = options.signal;
      const aborted = new Promise<IteratorResult<WatchEvent<T>>>((resolve) => {
        if (!signal || signal.aborted) return resolve({ done: true, value: undefined });
        signal.addEventListener('abort', () => resolve({ done: true, value: undefined }), { once: true });
      });
      return { [Symbol.asyncIterator]: () => ({ next: () => aborted }) };
    },
    close: async () => undefined,
  };
}
