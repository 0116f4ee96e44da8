/**
 * The StateStore contract (src/store/port.ts) as a reusable Jest suite. Every adapter runs it:
 *
 *   describeStoreContract('embedded', async () => ({ store: createEmbeddedStore(), cleanup: async () => {} }));
 *
 * It uses only the port API and the kinds ZGuest (namespaced) and ZHost (cluster-scoped), gives every
 * test its own names and namespaces, and never relies on numeric resourceVersions, so it can also run
 * against a shared real kube-apiserver. Behaviour that cannot be provoked through the port alone
 * (GoneError for an expired resourceVersion, persistence) is tested per adapter.
 */
import { describeIsolation, describeList, describeWatch } from './store-contract-reads.js';
import { describeDelete, describeStatus } from './store-contract-lifecycle.js';
import { describeCreate, describePatch, describeUpdate } from './store-contract-writes.js';
import { uniqueName, type ContractContext, type StoreContractOptions, type StoreFixture } from './store-fixtures.js';
import type { StateStore } from '../../src/store/index.js';

export type { StoreContractOptions, StoreFixture } from './store-fixtures.js';

export function describeStoreContract(name: string, makeStore: () => Promise<StoreFixture>, options: StoreContractOptions = {}): void {
  describe(`StateStore contract: ${name}`, () => {
    let fixture: StoreFixture | undefined;

    beforeEach(async () => {
      fixture = await makeStore();
    });

    afterEach(async () => {
      const done = fixture;
      fixture = undefined;
      if (!done) return;
      await done.store.close();
      await done.cleanup();
    });

    const ctx: ContractContext = {
      store(): StateStore {
        if (!fixture) throw new Error('the store is only available inside a test');
        return fixture.store;
      },
      async namespace(name?: string) {
        return options.makeNamespace ? options.makeNamespace(ctx.store(), name) : name ?? uniqueName('ns');
      },
    };

    describeCreate(ctx);
    describeUpdate(ctx);
    describePatch(ctx);
    describeStatus(ctx);
    describeDelete(ctx);
    describeList(ctx);
    describeWatch(ctx);
    describeIsolation(ctx);
  });
}
