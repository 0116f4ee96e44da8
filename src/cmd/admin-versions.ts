/**
 * Served versions on standalone's admin API, as the apiserver serves them: a request that names a
 * version, in its path (`/resources/zguests.v1alpha1.zvm.dev`) or in its body's apiVersion, gets its
 * objects labelled with that version, and the deprecated one also gets the CRD's deprecationWarning in
 * a `Warning: 299 - "…"` header. The store keeps the storage version whatever the request says.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_VERSION, DEPRECATED_VERSION, deprecationWarning, groupOf, resolveResource, type NamedResource, type Resource } from '../api/index.js';

/** The apiVersion each request asked for, when it named one. */
const asked = new WeakMap<FastifyRequest, string>();

export function serveVersions(app: FastifyInstance): void {
  app.addHook('preHandler', async (req, reply) => {
    const named = versionNamed(req);
    if (!named?.version) return;
    asked.set(req, `${groupOf(named.def)}/${named.version}`);
    if (named.version === DEPRECATED_VERSION) reply.header('warning', warningHeader(deprecationWarning(named.def.kind)));
  });
  app.addHook('preSerialization', async (req: FastifyRequest, _reply: FastifyReply, payload: unknown) => labelFor(req)(payload));
}

/** What relabels a reply (an object, a list, `{ object }` of an apply or a watch event) for the request's version. */
export function labelFor(req: FastifyRequest): (payload: unknown) => unknown {
  const apiVersion = asked.get(req);
  return apiVersion ? (payload) => relabel(payload, apiVersion) : (payload) => payload;
}

/** RFC 7234's warn-code 299 (a persistent warning) with no agent, as the apiserver writes it. */
export function warningHeader(text: string): string {
  return `299 - "${text.replace(/["\\]/g, '\\$&')}"`;
}

function versionNamed(req: FastifyRequest): NamedResource | undefined {
  const kind = (req.params as { kind?: string } | undefined)?.kind;
  const fromPath = kind ? resolveResource(kind) : undefined;
  if (fromPath?.version) return fromPath;
  const body = req.body as { apiVersion?: unknown; kind?: unknown } | undefined;
  if (typeof body?.apiVersion !== 'string' || typeof body.kind !== 'string' || !body.apiVersion.includes('/')) return undefined;
  const [group, version] = body.apiVersion.split('/');
  return resolveResource(`${body.kind}.${version}.${group}`);
}

function relabel(payload: unknown, apiVersion: string): unknown {
  if (Array.isArray(payload)) return payload.map((p) => relabel(p, apiVersion));
  if (typeof payload !== 'object' || payload === null) return payload;
  if ((payload as Resource).apiVersion === API_VERSION) return { ...payload, apiVersion };
  const inner = (payload as { object?: unknown }).object;
  return inner === undefined ? payload : { ...payload, object: relabel(inner, apiVersion) };
}
