import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { OutgoingHttpHeaders } from 'node:http';
import type { ServerOptions } from 'node:https';
import type { Registry } from 'prom-client';
import { API_VERSION, resolveResource, validateResource, type KindDefinition, type Resource } from '../api/index.js';
import { AlreadyExistsError, InvalidInputError, InvalidSpecError, isZvmError, NotFoundError, UnauthorizedError } from '../errors.js';
import type { Logger } from '../log.js';
import type { MemoryEventRecorder } from '../runtime/memory-event-recorder.js';
import { isAuthenticated, type AdminTokenSource } from '../rest/index.js';
import type { MergePatch, StateStore } from '../store/port.js';
import type { Hypervisor } from '../hypervisor/index.js';
import fileRoutes from '../rest/routes/files.js';
import type { RouteDeps } from '../rest/routes/route-deps.js';
import { readHostGuests } from './host-guests.js';
import { appliedOnto, withLastApplied } from './apply-merge.js';
import { labelFor, serveVersions } from './admin-versions.js';

export interface AdminServerDeps {
  store: StateStore;
  registry: Registry;
  log: Logger;
  isReady: () => boolean;
  /** the controllers' Events, served per object for `zvm-operator describe` */
  events?: Pick<MemoryEventRecorder, 'eventsFor'>;
  /** when enabled, the resource API needs the REST credentials (see requireAuth) */
  auth?: AdminTokenSource & { enabled: boolean };
  /** serve HTTPS with these options (listener-tls.ts); absent: plain HTTP */
  https?: ServerOptions;
  /** the hosts, for the live reads of `kubectl zvm` (power, console, host guests); none without */
  hosts?: { forHost(name: string): Hypervisor | undefined };
  /** PUT /files as REST serves it (`kubectl zvm image-upload`); absent without image directories */
  files?: { imageDirs: string[]; maxUploadBytes: number };
  /** `zvm-operator plan`: what applying a manifest would change, written nowhere (plan-manifest.ts) */
  plan?: (body: unknown) => Promise<unknown>;
}

/** Probes and scrapes stay open: they reveal no resource and change nothing. */
const OPEN_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

const STATUS: Record<string, number> = { UNAUTHORIZED: 401, NOT_FOUND: 404, ALREADY_EXISTS: 409, CONFLICT: 409, INVALID_SPEC: 422, INVALID_INPUT: 400, GONE: 410 };

/**
 * Probes, metrics and the small resource API that `zvm-operator apply/get/delete` use in
 * standalone mode (where there is no Kubernetes API server to talk to).
 */
export function createAdminServer(deps: AdminServerDeps): FastifyInstance {
  // probes and scrapes arrive every few seconds: their request logs stay below info
  const level = deps.log.levelVal > 40 ? deps.log.level : 'warn';
  const app = Fastify({ loggerInstance: deps.log.child({ component: 'admin' }, { level }) as FastifyBaseLogger, ...(deps.https ? { https: deps.https } : {}) }) as unknown as FastifyInstance;

  app.setErrorHandler((err: Error, _req, reply) => {
    const code = isZvmError(err) ? err.code : undefined;
    const issues = err instanceof InvalidSpecError ? err.issues : undefined;
    const status = code ? (STATUS[code] ?? 500) : ((err as { statusCode?: number }).statusCode ?? 500);
    if (status >= 500) deps.log.error({ err }, 'admin API failure');
    return reply.code(status).send({ error: code ?? 'ERROR', message: err.message, issues });
  });

  requireAuth(app, deps.auth);
  serveVersions(app);
  app.get('/healthz', async () => 'ok');
  app.get('/readyz', async (_req, reply) => (deps.isReady() ? 'ok' : reply.code(503).send('not ready')));
  app.get('/metrics', async (_req, reply) => reply.type(deps.registry.contentType).send(await deps.registry.metrics()));

  app.post('/apply', async (req) => applyResource(deps.store, req.body));
  const plan = deps.plan;
  if (plan) app.post('/plan', async (req) => plan(req.body));

  app.get<{ Params: { kind: string }; Querystring: { namespace?: string } }>('/resources/:kind', async (req) => {
    const def = kindOrThrow(req.params.kind);
    return (await deps.store.list(def.kind, { namespace: req.query.namespace })).items;
  });

  app.get<{ Params: { kind: string; name: string }; Querystring: { namespace?: string } }>('/resources/:kind/:name', async (req) => {
    const def = kindOrThrow(req.params.kind);
    const key = keyIn(def, req.params.name, req.query.namespace);
    const obj = await deps.store.get(def.kind, key);
    if (!obj) throw new NotFoundError(`${def.kind} ${req.params.name} not found`);
    return obj;
  });

  // the object's Events, oldest first (kept in memory: the last 1000 of the process)
  app.get<{ Params: { kind: string; name: string }; Querystring: { namespace?: string } }>('/resources/:kind/:name/events', async (req) => {
    const def = kindOrThrow(req.params.kind);
    const metadata = keyIn(def, req.params.name, req.query.namespace);
    return deps.events?.eventsFor({ apiVersion: API_VERSION, kind: def.kind, metadata, spec: {} }) ?? [];
  });

  app.delete<{ Params: { kind: string; name: string }; Querystring: { namespace?: string } }>('/resources/:kind/:name', async (req) => {
    const def = kindOrThrow(req.params.kind);
    const key = keyIn(def, req.params.name, req.query.namespace);
    await deps.store.delete(def.kind, key);
    return { deleted: `${def.plural}/${req.params.name}` };
  });

  registerPluginRoutes(app, deps);
  return app;
}

/** Namespaced kinds default to the `default` namespace, as kubectl does. */
function keyIn(def: KindDefinition, name: string, namespace: string | undefined): { name: string; namespace?: string } {
  return { name, ...(def.scope === 'Namespaced' ? { namespace: namespace ?? 'default' } : {}) };
}

/**
 * What `kubectl zvm --server` needs beyond apply/get/delete: a plain create, a merge patch (the
 * store's own semantics: a stale resourceVersion is a 409), a watch, live reads of a host (never a
 * write to z/VM: the controllers stay the only actors) and PUT /files.
 */
function registerPluginRoutes(app: FastifyInstance, deps: AdminServerDeps): void {
  app.post<{ Params: { kind: string } }>('/resources/:kind', async (req, reply) => {
    validateResource(req.body);
    const obj = req.body as Resource;
    const def = kindOrThrow(req.params.kind);
    if (def.kind !== obj.kind) throw new InvalidInputError(`a ${obj.kind} posted to /resources/${req.params.kind}`);
    if (def.scope === 'Namespaced') obj.metadata.namespace ??= 'default';
    return reply.code(201).send(await deps.store.create({ ...obj, status: undefined }));
  });

  app.patch<{ Params: { kind: string; name: string }; Querystring: { namespace?: string; resourceVersion?: string } }>('/resources/:kind/:name', async (req) => {
    const def = kindOrThrow(req.params.kind);
    const key = keyIn(def, req.params.name, req.query.namespace);
    const rv = req.query.resourceVersion ? { resourceVersion: req.query.resourceVersion } : {};
    return deps.store.patch(def.kind, key, req.body as MergePatch, rv);
  });

  // open watches end when the server closes: close() waits for every connection, and a watcher's stays open
  const watches = new Set<AbortController>();
  app.addHook('preClose', async () => {
    for (const stop of watches) stop.abort();
  });

  // a watch as lines of JSON: headers go out once the store's watch has started (the client's writes wait for that)
  app.get<{ Params: { kind: string }; Querystring: { namespace?: string; resourceVersion?: string } }>('/watch/:kind', async (req, reply) => {
    const def = kindOrThrow(req.params.kind);
    const stop = new AbortController();
    watches.add(stop);
    stop.signal.addEventListener('abort', () => watches.delete(stop), { once: true });
    // the response's close: the client went away (the request's fires once its body is read, before this listener may exist)
    reply.raw.once('close', () => stop.abort());
    const events = deps.store.watch(def.kind, { namespace: req.query.namespace, resourceVersion: req.query.resourceVersion || undefined, signal: stop.signal });
    const label = labelFor(req);
    reply.hijack();
    // with the headers set so far (a deprecated version's Warning)
    reply.raw.writeHead(200, { ...(reply.getHeaders() as OutgoingHttpHeaders), 'content-type': 'application/x-ndjson', 'cache-control': 'no-cache' });
    reply.raw.flushHeaders();
    try {
      for await (const ev of events) reply.raw.write(`${JSON.stringify(label(ev))}\n`);
    } catch (err) {
      if (!stop.signal.aborted) reply.raw.write(`${JSON.stringify({ type: 'ERROR', error: isZvmError(err) ? err.code : 'ERROR', message: (err as Error).message })}\n`);
    }
    reply.raw.end();
  });

  const hostOf = (name: string): Hypervisor => {
    const hv = deps.hosts?.forHost(name);
    if (!hv) throw new NotFoundError(`host ${name} not found`);
    return hv;
  };
  app.get<{ Params: { host: string } }>('/hosts/:host/guests', async (req) => readHostGuests(hostOf(req.params.host)));
  app.get<{ Params: { host: string; userid: string } }>('/hosts/:host/guests/:userid/power', async (req) => ({ power: await hostOf(req.params.host).queryPowerState(req.params.userid.toUpperCase()) }));
  app.get<{ Params: { host: string; userid: string } }>('/hosts/:host/guests/:userid/console', async (req) => ({ output: await hostOf(req.params.host).getConsoleOutput(req.params.userid.toUpperCase()) }));

  const files = deps.files;
  if (files) app.register(fileRoutes, { config: { imageDirs: files.imageDirs, maxUploadBytes: files.maxUploadBytes } } as RouteDeps);
}

/**
 * With auth on, every resource route (reads too: specs name Secrets and hosts) needs the same
 * credentials as REST: a valid X-Auth-Token from POST /token, or the admin token itself in
 * X-Admin-Token (what `zvm-operator apply/get/delete --admin-token-file` send).
 */
function requireAuth(app: FastifyInstance, auth: AdminServerDeps['auth']): void {
  if (!auth?.enabled) return;
  app.addHook('onRequest', async (req) => {
    if (OPEN_PATHS.has(req.url.split('?')[0] ?? '')) return;
    if (!(await isAuthenticated(req.raw, auth, { acceptAdminToken: true }))) {
      throw new UnauthorizedError('the admin API needs X-Admin-Token (the admin token) or X-Auth-Token (from POST /token)');
    }
  });
}

/** A kind name as kubectl takes it, with its group or version and group too (`zguests.v1alpha1.zvm.dev`). */
function kindOrThrow(name: string) {
  const def = resolveResource(name)?.def;
  if (!def) throw new NotFoundError(`unknown kind ${name}`);
  return def;
}

/** Create, or update spec/labels/annotations of an existing object: `kubectl apply` for one object. */
export async function applyResource(store: StateStore, body: unknown): Promise<{ action: 'created' | 'configured' | 'unchanged'; object: Resource }> {
  const { obj, def, key } = manifestOf(body);
  const existing = await store.get(def.kind, key);
  if (!existing) {
    try {
      return { action: 'created', object: await store.create(withLastApplied(obj)) };
    } catch (err) {
      if (!(err instanceof AlreadyExistsError)) throw err;
    }
  }
  const current = existing ?? (await store.get(def.kind, key));
  if (!current) throw new NotFoundError(`${def.kind} ${key.name} vanished during apply`);
  const updated = await store.update(appliedOnto(current, obj));
  return { action: updated.metadata.resourceVersion === current.metadata.resourceVersion ? 'unchanged' : 'configured', object: updated };
}

/** A validated manifest with its kind and key (namespaced kinds default to `default`). */
export function manifestOf(body: unknown): { obj: Resource; def: KindDefinition; key: { name: string; namespace?: string } } {
  validateResource(body);
  const obj = body as Resource;
  const def = kindOrThrow(obj.kind);
  if (def.scope === 'Namespaced') obj.metadata.namespace ??= 'default';
  return { obj, def, key: { name: obj.metadata.name, ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}) } };
}
