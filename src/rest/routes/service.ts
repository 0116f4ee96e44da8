import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Envelope, ok, okVersion } from '../envelope.js';
import type { RouteDeps } from './route-deps.js';

const Health = Type.Object({
  totalSuccess: Type.Integer(),
  totalFail: Type.Integer(),
  lastSuccess: Type.String(),
  lastFail: Type.String(),
  continuousFail: Type.Integer(),
  healthy: Type.Boolean(),
});

const Version = Type.Object({ version: Type.String(), api_version: Type.String(), max_version: Type.String(), min_version: Type.String() });

/** GET /, GET /smapi_health and the deprecated, un-enveloped GET /smapi-healthy. */
const serviceRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { config, hypervisors }) => {
  const health = () => {
    const h = hypervisors.forHost(config.defaultHost).health();
    return {
      totalSuccess: h.totalSuccess, totalFail: h.totalFail, lastSuccess: h.lastSuccess,
      lastFail: h.lastFail, continuousFail: h.continuousFail, healthy: h.healthy,
    };
  };

  // behind the token like the reference's version handler (tokens.validate): with auth on, no token is 401;
  // probes use the unauthenticated /healthz and /readyz of the admin (metrics) listener instead
  app.get('/', { schema: { summary: 'Service version', tags: ['service'], response: { 200: Envelope(Version) } } }, async () =>
    okVersion({ version: config.version, api_version: '1.0', max_version: '1.0', min_version: '1.0' }));

  app.get('/smapi_health', { schema: { summary: 'Counters of the hypervisor client', tags: ['service'], response: { 200: Envelope(Health) } } }, async () =>
    ok(health()));

  app.get('/smapi-healthy', {
    schema: { summary: 'Deprecated form of /smapi_health, not enveloped', tags: ['service'], deprecated: true, response: { 200: Type.Object({ SMAPI: Health }) } },
  }, async () => ({ SMAPI: health() }));
};

export default serviceRoutes;
