import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { resolveRestConfig, type RestDeps } from './config.js';
import { answerClientError, registerErrorHandler } from './error-handler.js';
import { MALFORMED_EMPTY, parseJsonText } from './json-body.js';
import { lazyChildLogger } from './lazy-logger.js';
import { BadRequestError } from './feilong-error.js';
import { createGuestService } from './guests/service.js';
import { registerOpenApi } from './openapi.js';
import { registerAuth } from './plugins/auth.js';
import { instrumentRest } from './plugins/metrics.js';
import { createRouteTable, installRouting } from './route-table.js';
import guestActionRoutes from './routes/guest-action.js';
import guestDiskRoutes from './routes/guest-disks.js';
import guestNicRoutes from './routes/guest-nics.js';
import guestQueryRoutes from './routes/guest-queries.js';
import guestStatsRoutes from './routes/guest-stats.js';
import imageRoutes from './routes/images.js';
import fileRoutes from './routes/files.js';
import guestRoutes from './routes/guests.js';
import hostRoutes from './routes/host.js';
import vswitchRoutes from './routes/vswitches.js';
import serviceRoutes from './routes/service.js';
import volumeRoutes from './routes/volumes.js';
import { validatorCompiler } from './validation.js';
import { createReachabilityGate } from './host-reachability.js';
import { createStoreFeed } from './store-feed.js';
import { createWriteAndWait } from './write-and-wait.js';


/** The reference refuses a body without a Content-Type with 400 and this text; ours adds the header to send. */
const CONTENT_TYPE_REQUIRED = 'content-type header required when content-length > 0: send the body as JSON with `Content-Type: application/json`';

const hasBody = (h: { 'content-length'?: string; 'transfer-encoding'?: string }): boolean =>
  h['transfer-encoding'] !== undefined || (h['content-length'] !== undefined && h['content-length'] !== '0');

/**
 * JSON bodies: unparsable → 400 envelope. An empty body is no body (the reference's clients send
 * `Content-Type: application/json` with `Content-Length: 0` on DELETE and POST /token): only a route that
 * reads a body (it has a body schema) answers 400 for it, as the reference's handlers do.
 */
function registerJsonBodies(app: FastifyInstance): void {
  // every body is JSON (file import has its own parser): a text/plain body is a wrong Content-Type, a 415
  app.removeContentTypeParser(['application/json', 'text/plain']);
  // callback hooks on every request's path: an async one costs a promise and a turn of the microtask queue
  app.addHook('onRequest', (req, _reply, done) => {
    done(req.headers['content-type'] === undefined && hasBody(req.headers) ? new BadRequestError(CONTENT_TYPE_REQUIRED) : undefined);
  });
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, parseJsonText(text));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.addHook('preValidation', async (req) => {
    if (req.routeOptions.schema?.body && req.body === undefined) throw new BadRequestError(MALFORMED_EMPTY);
  });
}

/**
 * One access line per request: what was asked, the answer's status and how long it took, not fastify's
 * two ('incoming request' with the socket's details, then 'request completed'); at debug, since the
 * profile of a busy sidecar (issue 38) put it at ~14 % of a request's CPU (the redaction pass of every
 * line, the serialization, the write). Failures are logged at warn and error by the error handler.
 */
class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    const line = { method: req.method, url: req.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 };
    if (error) req.log.error({ ...line, err: error }, 'request errored');
    else req.log.debug(line, 'request');
  }
}

/**
 * The feilong-compatible REST sidecar as a fastify instance (not listening; cmd/ listens).
 * Writes go to the store and wait for the controller's status; live reads go to the Hypervisor.
 */
export function createRestApp(deps: RestDeps): FastifyInstance {
  const config = resolveRestConfig(deps.config);
  // Long path parameters reach the route's own validation (a 400 envelope), not the router's bare 414.
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger, logController: new AccessLog(), childLoggerFactory: lazyChildLogger,
    exposeHeadRoutes: false, routerOptions: { maxParamLength: 4096 }, clientErrorHandler: answerClientError,
    ...(deps.https ? { https: deps.https } : {}),
  }) as unknown as FastifyInstance;
  app.setValidatorCompiler(validatorCompiler);
  // response schemas document the routes (OpenAPI); bodies are written as built, key order kept
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  registerErrorHandler(app);
  instrumentRest(app, deps.registry);
  registerJsonBodies(app);
  const table = createRouteTable();
  installRouting(app, table);
  registerAuth(app, config.auth);
  app.addHook('onSend', (_req, reply, payload, done) => {
    reply.header('cache-control', 'no-cache');
    // the reference sends JSON without a charset parameter
    if (String(reply.getHeader('content-type')).startsWith('application/json')) reply.header('content-type', 'application/json');
    done(null, payload);
  });
  // one store watch per kind for every waiting request (store-feed.ts), ended with the app
  const feed = createStoreFeed(deps.store, deps.log);
  app.addHook('onClose', async () => feed.close());
  const writes = createWriteAndWait({ store: deps.store, feed, config, log: deps.log });
  // a host declared unreachable answers SMAPI-down at once on every live read (host-reachability.ts)
  const hypervisors = createReachabilityGate(deps.hypervisors, deps.store, feed);
  const guests = createGuestService({ store: deps.store, hypervisors, config, log: deps.log, index: deps.guestIndex, writes });
  const opts = { guests, config, hypervisors };
  app.register(serviceRoutes, opts);
  // /guests/stats and friends are declared before /guests/{userid}, which they shadow (§1.1)
  app.register(guestStatsRoutes, opts);
  app.register(volumeRoutes, { ...opts, store: deps.store });
  app.register(guestRoutes, opts);
  app.register(guestActionRoutes, opts);
  app.register(guestQueryRoutes, opts);
  app.register(guestNicRoutes, opts);
  app.register(guestDiskRoutes, opts);
  app.register(hostRoutes, opts);
  app.register(vswitchRoutes, opts);
  app.register(imageRoutes, opts);
  app.register(fileRoutes, opts);
  registerOpenApi(app, table, config.version);
  return app;
}
