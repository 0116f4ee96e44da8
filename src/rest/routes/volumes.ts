import type { FastifyPluginAsync } from 'fastify';
import type { StateStore } from '../../store/port.js';
import { attachRoutes } from '../volumes/attach-routes.js';
import { fcpRoutes } from '../volumes/fcp-routes.js';
import { templateRoutes } from '../volumes/template-routes.js';
import { createTemplateService } from '../volumes/templates.js';
import type { RouteDeps } from './route-deps.js';

/**
 * Volumes and FCP (docs/rest-interface.md §1.2 rows 10–20): attach/detach become ZVolume resources,
 * templates ZFcpTemplate resources, and FCP usage lives in the templates' ledger. Registered
 * before /guests/{userid}, which /guests/volumes shadows (§1.1).
 */
const volumeRoutes: FastifyPluginAsync<RouteDeps & { store: StateStore }> = async (app, { store, config, hypervisors, guests }) => {
  const templates = createTemplateService({ store, config, writes: guests.writes });
  await app.register(attachRoutes, { store, config, writes: guests.writes });
  await app.register(templateRoutes, { templates, config, hypervisors });
  await app.register(fcpRoutes, { store, templates, config, hypervisors });
};

export default volumeRoutes;
