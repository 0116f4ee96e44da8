import type { HypervisorResolver, RestConfig } from '../config.js';
import type { GuestService } from '../guests/service.js';

/** What every route group receives as plugin options. */
export interface RouteDeps {
  guests: GuestService;
  config: RestConfig;
  hypervisors: HypervisorResolver;
}
