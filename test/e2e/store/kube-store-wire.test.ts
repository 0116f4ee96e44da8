/**
 * The kube store's HTTP behaviour against a scripted local server (no apiserver needed): which
 * endpoint and content type each call uses, and how answers a real apiserver gives only rarely
 * (a 410 watch ERROR event, an HTTP 410, a missing CRD, 5xx) map to typed errors.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { ZGuest } from '../../../src/api/index.js';
import { createKubeStore, fieldToPointer } from '../../../src/store/kube/index.js';
import type { StateStore, WatchEvent } from '../../../src/store/index.js';
import { aGuest, rejection } from '../../contract/store-fixtures.js';

interface Seen {
  method: string;
  url: string;
  contentType?: string;
  body: unknown;
}

type Route = (req: Seen, res: ServerResponse) => void;

let server: Server;
let port = 0;
let route: Route = (_req, res) => reply(res, 500, {});
let seen: Seen[] = [];
let store: StateStore;

function reply(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function status(code: number, reason: string, message: string, details: object = {}): object {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message, details };
}

/** Answers a watch with these lines (events or raw), then ends the stream like a server-side timeout. */
function stream(res: ServerResponse, lines: unknown[]): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  for (const line of lines) res.write(`${JSON.stringify(line)}\n`);
  res.end();
}

function kubeconfigFor(serverUrl: string): KubeConfig {
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromOptions({
    clusters: [{ name: 'local', server: serverUrl, skipTLSVerify: true }],
    users: [{ name: 'tester', token: 'test-token' }],
    contexts: [{ name: 'local', cluster: 'local', user: 'tester' }],
    currentContext: 'local',
  });
  return kubeconfig;
}

function stored(name = 'g1', namespace = 'ns'): ZGuest {
  const guest = aGuest(namespace, name);
  guest.metadata = { ...guest.metadata, uid: 'u-1', resourceVersion: '7', generation: 1, creationTimestamp: '2026-01-01T00:00:00Z' };
  return guest;
}

async function drain<T extends WatchEvent>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const event of events) out.push(event);
  return out;
}

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      const entry: Seen = { method: req.method ?? '', url: req.url ?? '', contentType: req.headers['content-type'], body: raw ? JSON.parse(raw) : undefined };
      seen.push(entry);
      route(entry, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen = [];
  store = createKubeStore({ kubeconfig: kubeconfigFor(`http://127.0.0.1:${port}`) });
});

afterEach(async () => {
  await store.close();
  server.closeAllConnections();
});

describe('kube store watch over HTTP', () => {
  it('asks for bookmarks from the given resourceVersion and just ends when the server ends the stream', async () => {
    const guest = stored();
    route = (_req, res) => stream(res, [
      { type: 'ADDED', object: { ...guest, metadata: { ...guest.metadata, managedFields: [{ manager: 'x' }] } } },
      { type: 'BOOKMARK', object: { apiVersion: guest.apiVersion, kind: 'ZGuest', metadata: { resourceVersion: '9', creationTimestamp: null } } },
    ]);
    const events = await drain(store.watch<ZGuest>('ZGuest', { namespace: 'ns', resourceVersion: '5', labelSelector: { a: 'b' } }));
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    expect(events[0].object.metadata).not.toHaveProperty('managedFields');
    expect(events[1].object.metadata).toEqual({ resourceVersion: '9' });
    const url = new URL(seen[0].url, 'http://x');
    expect(url.pathname).toBe('/apis/zvm.dev/v1beta1/namespaces/ns/zguests');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ watch: 'true', allowWatchBookmarks: 'true', resourceVersion: '5', labelSelector: 'a=b' });
    expect(Number(url.searchParams.get('timeoutSeconds'))).toBeGreaterThan(0);
  });

  it('ends with GONE on an ERROR event with code 410, after the events before it', async () => {
    route = (_req, res) => stream(res, [
      { type: 'ADDED', object: stored() },
      { type: 'ERROR', object: status(410, 'Expired', 'too old resource version: 1 (201)') },
    ]);
    const received: string[] = [];
    const err = await rejection((async () => {
      for await (const event of store.watch('ZGuest', { namespace: 'ns', resourceVersion: '1' })) received.push(event.type);
    })());
    expect(received).toEqual(['ADDED']);
    expect(err.code).toBe('GONE');
  });

  it('ends with GONE on an HTTP 410 answer to the watch request', async () => {
    route = (_req, res) => reply(res, 410, status(410, 'Gone', 'gone'));
    expect((await rejection(drain(store.watch('ZGuest', { resourceVersion: '1' })))).code).toBe('GONE');
  });

  it('maps another ERROR event to a typed error the informer retries (UNAVAILABLE for a 500)', async () => {
    route = (_req, res) => stream(res, [{ type: 'ERROR', object: status(500, 'InternalError', 'etcd is sad') }]);
    expect((await rejection(drain(store.watch('ZGuest', { resourceVersion: '3' })))).code).toBe('UNAVAILABLE');
  });

  it('reads the current resourceVersion first when none is given, and watches from it', async () => {
    route = (req, res) => {
      if (req.url.includes('watch=true')) stream(res, []);
      else reply(res, 200, { apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuestList', metadata: { resourceVersion: '42' }, items: [] });
    };
    await drain(store.watch('ZGuest', { namespace: 'ns' }));
    expect(new URL(seen[0].url, 'http://x').searchParams.get('limit')).toBe('1');
    expect(new URL(seen[1].url, 'http://x').searchParams.get('resourceVersion')).toBe('42');
  });

  it('is ended by close()', async () => {
    route = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: stored() })}\n`); // and the stream stays open
    };
    const events = store.watch('ZGuest', { resourceVersion: '1' });
    const drained = (async () => {
      const types: string[] = [];
      for await (const event of events) {
        types.push(event.type);
        await store.close();
      }
      return types;
    })();
    await expect(drained).resolves.toEqual(['ADDED']);
  });
});

describe('kube store requests and error mapping', () => {
  it('sends a patch as a merge patch with the resourceVersion precondition in its metadata', async () => {
    route = (req, res) => reply(res, 200, stored());
    await store.patch('ZGuest', { namespace: 'ns', name: 'g1' }, { spec: { vcpus: 2 } }, { resourceVersion: '7' });
    const patch = seen.find((s) => s.method === 'PATCH');
    expect(patch?.url).toMatch(/^\/apis\/zvm\.dev\/v1beta1\/namespaces\/ns\/zguests\/g1\?/);
    expect(patch?.contentType).toBe('application/merge-patch+json');
    expect(patch?.body).toEqual({ spec: { vcpus: 2 }, metadata: { resourceVersion: '7' } });
  });

  it('writes status through the status subresource', async () => {
    route = (_req, res) => reply(res, 200, stored());
    await store.patchStatus('ZGuest', { namespace: 'ns', name: 'g1' }, { phase: 'Running' });
    await store.updateStatus({ ...stored(), status: { phase: 'Running' } });
    const writes = seen.filter((s) => s.method !== 'GET');
    expect(writes.map((s) => `${s.method} ${new URL(s.url, 'http://x').pathname}`)).toEqual([
      'PATCH /apis/zvm.dev/v1beta1/namespaces/ns/zguests/g1/status',
      'PUT /apis/zvm.dev/v1beta1/namespaces/ns/zguests/g1/status',
    ]);
    expect(writes[0].contentType).toBe('application/merge-patch+json');
    expect(writes[0].body).toEqual({ status: { phase: 'Running' } });
  });

  it('answers get with undefined for a missing object but fails when the resource type is not served', async () => {
    route = (_req, res) => reply(res, 404, status(404, 'NotFound', 'zguests.zvm.dev "g1" not found', { name: 'g1', group: 'zvm.dev', kind: 'zguests' }));
    expect(await store.get('ZGuest', { namespace: 'ns', name: 'g1' })).toBeUndefined();
    route = (_req, res) => reply(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
    expect((await rejection(store.get('ZGuest', { namespace: 'ns', name: 'g1' }))).code).toBe('NOT_FOUND');
  });

  it('maps a 422 with causes to INVALID_SPEC whose issues name JSON pointer paths', async () => {
    route = (_req, res) => reply(res, 422, status(422, 'Invalid', 'bad', { causes: [{ field: 'spec.disks[0].size', message: 'nope' }] }));
    const err = await rejection(store.create(aGuest('ns')));
    expect(err.code).toBe('INVALID_SPEC');
    expect(err.issues).toEqual([{ path: '/spec/disks/0/size', message: 'nope' }]);
  });

  it('maps 409 to ALREADY_EXISTS on create and to CONFLICT on update', async () => {
    route = (_req, res) => reply(res, 409, status(409, 'AlreadyExists', 'exists'));
    expect((await rejection(store.create(aGuest('ns')))).code).toBe('ALREADY_EXISTS');
    route = (_req, res) => reply(res, 409, status(409, 'Conflict', 'the object has been modified'));
    expect((await rejection(store.update(stored()))).code).toBe('CONFLICT');
  });

  it('reports an unreachable apiserver as UNAVAILABLE', async () => {
    const closed = createKubeStore({ kubeconfig: kubeconfigFor('http://127.0.0.1:1') });
    expect((await rejection(closed.list('ZGuest'))).code).toBe('UNAVAILABLE');
    expect((await rejection(drain(closed.watch('ZGuest', { resourceVersion: '1' })))).code).toBe('UNAVAILABLE');
    await closed.close();
  });

  it('gives up on a request the apiserver never answers with TIMEOUT', async () => {
    route = () => undefined; // never answers
    const impatient = createKubeStore({ kubeconfig: kubeconfigFor(`http://127.0.0.1:${port}`), requestTimeoutMs: 200 });
    expect((await rejection(impatient.get('ZGuest', { namespace: 'ns', name: 'g1' }))).code).toBe('TIMEOUT');
    await impatient.close();
  });

  it('refuses writes after close', async () => {
    await store.close();
    expect((await rejection(store.create(aGuest('ns')))).code).toBe('UNAVAILABLE');
    expect(seen).toEqual([]);
  });

  it.each([
    ['spec.vcpus', '/spec/vcpus'],
    ['spec.disks[0].size', '/spec/disks/0/size'],
    ['metadata.labels[zvm.dev/role]', '/metadata/labels/zvm.dev~1role'],
    ['', '/'],
    ['<nil>', '/'],
  ])('turns the field path %p into the pointer %p', (field, pointer) => {
    expect(fieldToPointer(field)).toBe(pointer);
  });
});
