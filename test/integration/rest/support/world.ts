import type { FastifyInstance } from 'fastify';
import { FINALIZER, type ZGuest } from '../../../../src/api/index.js';
import { silentLogger } from '../../../../src/log.js';
import { createRestApp, type RestConfigInput } from '../../../../src/rest/index.js';
import { createEmbeddedStore } from '../../../../src/store/embedded/index.js';
import type { StateStore } from '../../../../src/store/port.js';
import { FakeHypervisor } from '../../../builders/fake-hypervisor.js';
import { startControllerStub, type ControllerStub } from './controller-stub.js';
import { listenLocal, type HttpResponse, type RequestOptions } from './http.js';

export interface RestWorld {
  app: FastifyInstance;
  store: StateStore;
  hv: FakeHypervisor;
  stub: ControllerStub;
  /** one HTTP request to the app listening on 127.0.0.1 */
  inject(opts: RequestOptions): Promise<HttpResponse>;
  guest(userid: string): Promise<ZGuest | undefined>;
  close(): Promise<void>;
}

/** createRestApp over the real embedded store, a fake host and the controller stub. */
export async function aRestWorld(config: RestConfigInput = {}): Promise<RestWorld> {
  const store = createEmbeddedStore();
  const hv = new FakeHypervisor();
  const app = createRestApp({
    store,
    hypervisors: { forHost: () => hv },
    log: silentLogger(),
    config: { operationTimeoutMs: 3000, diskPool: 'ECKD:POOL1', ...config },
  });
  const stub = startControllerStub(store, { finalizer: FINALIZER });
  const inject = await listenLocal(app);
  return {
    app, store, hv, stub, inject,
    guest: (userid) => store.get<ZGuest>('ZGuest', { namespace: 'default', name: userid.toLowerCase() }),
    async close() {
      await stub.stop();
      await app.close();
      await store.close();
    },
  };
}
