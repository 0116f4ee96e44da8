import type { FastifyInstance, FastifySchema } from 'fastify';
import type { RouteTable } from './route-table.js';

type Json = Record<string, unknown>;

declare module 'fastify' {
  interface FastifySchema {
    /** OpenAPI documentation beside the validation schemas */
    summary?: string;
    description?: string;
    tags?: readonly string[];
    deprecated?: boolean;
  }
}

/** Plain JSON of a TypeBox schema (drops symbols and our documentation-only marker). */
function plain(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema, (k, v: unknown) => (k === 'x-doc-only' ? undefined : v))) as Json;
}

function parametersOf(schema: FastifySchema): Json[] {
  const out: Json[] = [];
  const add = (part: unknown, where: 'path' | 'query') => {
    const obj = part ? plain(part) : undefined;
    const props = (obj?.properties ?? {}) as Record<string, Json>;
    const required = new Set((obj?.required as string[] | undefined) ?? []);
    for (const [name, s] of Object.entries(props)) {
      out.push({ name, in: where, required: where === 'path' || required.has(name), schema: s });
    }
  };
  add(schema.params, 'path');
  add(schema.querystring, 'query');
  return out;
}

function operationOf(schema: FastifySchema | undefined): Json {
  const s = (schema ?? {}) as FastifySchema & Json;
  const op: Json = {};
  for (const k of ['summary', 'description', 'tags', 'deprecated']) if (s[k] !== undefined) op[k] = s[k];
  const parameters = parametersOf(s);
  if (parameters.length > 0) op.parameters = parameters;
  if (s.body) op.requestBody = { required: true, content: { 'application/json': { schema: plain(s.body) } } };
  const responses: Json = {};
  for (const [code, r] of Object.entries((s.response ?? {}) as Record<string, unknown>)) {
    responses[code] = { description: code === '200' ? 'success envelope' : 'error envelope', content: { 'application/json': { schema: plain(r) } } };
  }
  responses.default = { description: 'error envelope {overallRC, modID, rc, rs, errmsg, output}' };
  op.responses = responses;
  return op;
}

/** OpenAPI 3.0 document generated from the declared routes and their schemas. */
export function computeOpenApi(table: RouteTable, version: string): Json {
  const paths: Record<string, Json> = {};
  for (const r of table.routes) {
    if (r.url === '/openapi.json') continue;
    const path = r.url.replace(/:([A-Za-z_]+)/g, '{$1}');
    paths[path] = { ...paths[path], [r.method.toLowerCase()]: operationOf(r.schema) };
  }
  return {
    openapi: '3.0.3',
    info: { title: 'z/VM Cloud Connector compatible REST interface (zvm-operator)', version },
    components: { securitySchemes: { authToken: { type: 'apiKey', in: 'header', name: 'X-Auth-Token' } } },
    security: [{ authToken: [] }],
    paths,
  };
}

/** GET /openapi.json, readable without a token. */
export function registerOpenApi(app: FastifyInstance, table: RouteTable, version: string): void {
  let doc: Json | undefined;
  app.get('/openapi.json', { config: { public: true } }, async () => (doc ??= computeOpenApi(table, version)));
}
