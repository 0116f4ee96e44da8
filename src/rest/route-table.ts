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
  /** Whether `path`, which the router matched to the declared `url`, is `url`'s in declaration order too. */
  isFirstMatch(url: string, path: string): boolean;
}

/** Whether some concrete path may fit both templates: as many segments, each equal or a parameter in either (a wildcard: yes). */
function overlap(a: string, b: string): boolean {
  if (a.includes('*') || b.includes('*')) return true;
  const x = a.split('/');
  const y = b.split('/');
  return x.length === y.length && x.every((seg, i) => seg === y[i] || seg.startsWith(':') || y[i].startsWith(':'));
}

export function createRouteTable(): RouteTable & { add(route: DeclaredRoute): void } {
  const routes: DeclaredRoute[] = [];
  const paths: PathEntry[] = [];
  const byUrl = new Map<string, PathEntry>();
  /** per declared path: whether an earlier one can match the same concrete paths (only those need the scan) */
  const shadowable = new Map<string, boolean>();
  const match = (path: string) => {
    const entry = paths.find((p) => p.regex.test(path));
    return entry ? { url: entry.url, methods: entry.methods } : undefined;
  };
  return {
    routes,
    add(route) {
      if (route.method === 'HEAD') return;
      routes.push(route);
      let entry = byUrl.get(route.url);
      if (!entry) {
        entry = { url: route.url, regex: toRegex(route.url), methods: [] };
        paths.push(entry);
        byUrl.set(route.url, entry);
      }
      entry.methods.push(route.method);
      shadowable.clear();
    },
    match,
    isFirstMatch(url, path) {
      const entry = byUrl.get(url);
      let shadowed = shadowable.get(url);
      if (shadowed === undefined) {
        const at = entry ? paths.indexOf(entry) : -1;
        shadowed = at < 0 || paths.slice(0, at).some((p) => overlap(p.url, url));
        shadowable.set(url, shadowed);
      }
      // unshadowed: its own pattern is the whole question (one test, not a scan from the top)
      return shadowed || !entry ? match(path)?.url === url : entry.regex.test(path);
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
    if (declared === undefined || table.isFirstMatch(declared, pathOf(req))) return done();
    // answered here: the chain stops (fastify's hooks end at a sent reply)
    return answerUnrouted(table, req, reply);
  });
}
