import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, HTTPMethods } from 'fastify';

export interface DeclaredRoute {
  method: string;
  url: string;
  schema?: FastifySchema;
}

interface PathEntry {
  url: string;
  regex: RegExp;
  methods: string[];
}

function toRegex(url: string): RegExp {
  const body = url
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}$`);
}

/**
 * Every declared route in declaration order. The reference matches paths in that order (so
 * `/guests/stats` shadows `/guests/{userid}` for every method) and answers a known path with a
 * wrong method 405 with `allow` listing the declared methods (docs/rest-interface.md §1.1).
 */
export interface RouteTable {
  routes: DeclaredRoute[];
  /** The first declared path matching a concrete path, if any. */
  match(path: string): { url: string; methods: string[] } | undefined;
}

export function createRouteTable(): RouteTable & { add(route: DeclaredRoute): void } {
  const routes: DeclaredRoute[] = [];
  const paths: PathEntry[] = [];
  return {
    routes,
    add(route) {
      if (route.method === 'HEAD') return;
      routes.push(route);
      let entry = paths.find((p) => p.url === route.url);
      if (!entry) {
        entry = { url: route.url, regex: toRegex(route.url), methods: [] };
        paths.push(entry);
      }
      entry.methods.push(route.method);
    },
    match(path) {
      const entry = paths.find((p) => p.regex.test(path));
      return entry ? { url: entry.url, methods: entry.methods } : undefined;
    },
  };
}

export function routingErrorBody(status: number, errmsg: string) {
  return { overallRC: status, modID: 120, rc: status, rs: status, errmsg, output: '' };
}

function pathOf(req: FastifyRequest): string {
  const q = req.url.indexOf('?');
  return q === -1 ? req.url : req.url.slice(0, q);
}

function answerUnrouted(table: RouteTable, req: FastifyRequest, reply: FastifyReply) {
  const found = table.match(pathOf(req));
  reply.type('application/json');
  if (!found) return reply.code(404).send(routingErrorBody(404, 'The resource could not be found.'));
  return reply
    .code(405)
    .header('allow', found.methods.join(', '))
    .send(routingErrorBody(405, `The method ${req.method} is not allowed for this resource.`));
}

/**
 * Records routes as they are declared and answers routing errors with the JSON envelope (docs/architecture.md
 * §4) before any authentication: unknown path 404, wrong method 405 with its Allow header.
 */
export function installRouting(app: FastifyInstance, table: ReturnType<typeof createRouteTable>): void {
  app.addHook('onRoute', (opts) => {
    const methods = Array.isArray(opts.method) ? opts.method : [opts.method];
    for (const m of methods as HTTPMethods[]) table.add({ method: m, url: opts.url, schema: opts.schema });
  });
  app.setNotFoundHandler((req, reply) => answerUnrouted(table, req, reply));
  // a callback hook: on every request's path, where an async one costs a promise and a microtask turn
  app.addHook('onRequest', (req, reply, done) => {
    const declared = req.routeOptions.url;
    // undefined: the not-found handler answers
    const found = declared === undefined ? undefined : table.match(pathOf(req));
    if (declared === undefined || (found && found.url === declared)) return done();
    // answered here: the chain stops (fastify's hooks end at a sent reply)
    return answerUnrouted(table, req, reply);
  });
}
