import type { RouteOptions } from 'fastify';
import { silentLogger } from '../../../src/log.js';
import { createRestApp } from '../../../src/rest/index.js';
import { DOC_ONLY, validatorCompiler } from '../../../src/rest/validation.js';
import { createEmbeddedStore } from '../../../src/store/embedded/index.js';
import { FakeHypervisor } from '../../builders/fake-hypervisor.js';

// Route validators compile on their first request (validation.ts); this keeps a schema ajv refuses
// from reaching a user's first request: every one is compiled here, by a first validation.
const firstRequest = (schema: unknown, httpPart: string) => validatorCompiler({ schema: schema as never, method: 'GET', url: '/', httpPart })(undefined);

describe('REST route schemas', () => {
  it('every validated part of every route compiles with the REST validator', async () => {
    const store = createEmbeddedStore();
    const hv = new FakeHypervisor();
    const app = createRestApp({ store, hypervisors: { forHost: () => hv }, log: silentLogger(), config: {} });
    const routes: RouteOptions[] = [];
    app.addHook('onRoute', (r) => void routes.push(r));
    await app.ready();
    let compiled = 0;
    for (const r of routes) {
      for (const part of ['body', 'querystring', 'params', 'headers'] as const) {
        const schema = (r.schema as Record<string, unknown> | undefined)?.[part] as Record<string, unknown> | undefined;
        if (!schema || schema[DOC_ONLY]) continue;
        expect(() => firstRequest(schema, part)).not.toThrow();
        compiled += 1;
      }
    }
    // the interface has some sixty routes, nearly each with a validated path, query or body: all of them, not a few
    expect(routes.length).toBeGreaterThanOrEqual(55);
    expect(compiled).toBeGreaterThanOrEqual(50);
    await app.close();
    await store.close();
  });

  it("a route's first request throws where ajv refuses its schema", () => {
    expect(() => firstRequest({ type: 'nonsense' }, 'body')).toThrow();
  });
});
