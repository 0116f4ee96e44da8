/** The SMAPI client against the SMAPI server over loopback TCP, with an in-test handler. */
import { setTimeout as delay } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { HypervisorError, TimeoutError } from '../../src/errors.js';
import { createSmapiClient } from '../../src/hypervisor/smapi/client.js';
import type { SmapiClientOptions } from '../../src/hypervisor/smapi/client.js';
import { raiseFor } from '../../src/hypervisor/smapi/messages.js';
import { createSmapiServer } from '../../src/hypervisor/smapi/server.js';
import type { SmapiServer } from '../../src/hypervisor/smapi/server.js';
import { scriptedHandler } from './smapi-helpers.js';
import type { ScriptedHandler } from './smapi-helpers.js';

const auth = { userid: 'MAINT', password: 'SECRET' };
const records = ['USER LINUX01 PASSW0RD 1G 2G G', 'MDISK 0100 3390 1 100 VOL001 MR'];

let handler: ScriptedHandler;
let server: SmapiServer;

async function startServer(extra: Partial<Parameters<typeof createSmapiServer>[0]> = {}): Promise<void> {
  handler = scriptedHandler((req) => (req.fn === 'Image_Query_DM'
    ? { rc: 0, rs: 0, output: { image_record_array: records } }
    : { rc: 0, rs: 0, output: {} }));
  server = await createSmapiServer({ handler, auth, port: 0, ...extra });
}

function client(extra: Partial<SmapiClientOptions> = {}) {
  return createSmapiClient({
    host: '127.0.0.1', port: server.port, auth, poolSize: 4, timeoutMs: 2000, retries: 3, backoffMs: 1,
    asyncPollMs: 1, recoveryDelayMs: 1, ...extra,
  });
}

afterEach(() => server.close());

describe('SMAPI client over the wire', () => {
  beforeEach(() => startServer());

  it('sends typed params and decodes the typed output', async () => {
    const c = client();
    const resp = await c.callFn('Image_Query_DM', 'LINUX01', {});
    expect(resp).toEqual({ rc: 0, rs: 0, output: { image_record_array: records } });
    await c.callFn('Image_Disk_Create', 'LINUX01', { image_disk_number: '0100', image_disk_mode: 'MR' });
    expect(handler.calls.at(-1)).toEqual({ fn: 'Image_Disk_Create', target: 'LINUX01', params: { image_disk_number: '0100', image_disk_mode: 'MR' } });
  });

  it('returns rc 120 for bad credentials, and raiseFor turns it into a typed error', async () => {
    const resp = await client({ auth: { userid: 'MAINT', password: 'nope' } }).call('Image_Activate', 'LINUX01');
    expect([resp.rc, resp.rs]).toEqual([120, 0]);
    expect(() => raiseFor('Image_Activate', resp)).toThrow(HypervisorError);
    expect(handler.calls).toHaveLength(0);
  });

  it('retries a busy server (900/8) until the call goes through', async () => {
    server.faults.busy = 2;
    const c = client();
    const resp = await c.call('Image_Activate', 'LINUX01');
    expect([resp.rc, resp.rs]).toEqual([0, 0]);
    expect(handler.calls).toHaveLength(1);
    expect(c.health()).toMatchObject({ totalSuccess: 1, totalFail: 0, healthy: true });
  });

  it('returns the busy answer once the retries are used up', async () => {
    server.faults.busy = 5;
    const resp = await client({ retries: 1 }).call('Image_Activate', 'LINUX01');
    expect([resp.rc, resp.rs]).toEqual([900, 8]);
    expect(handler.calls).toHaveLength(0);
  });

  it('recovers a reply lost after the request id with Response_Recovery, without running the call twice', async () => {
    server.faults.dropAfterRequestId = 1;
    const resp = await client().call('Image_Query_DM', 'LINUX01');
    expect(resp).toEqual({ rc: 0, rs: 0, output: { image_record_array: records } });
    expect(handler.calls).toHaveLength(1);
  });

  it('sends the original again when Response_Recovery does not know the request (4/4)', async () => {
    server.faults.delayMs = 400;
    server.faults.delayCount = 1; // only the first attempt is late; recovery finds nothing cached yet
    const resp = await client({ timeoutMs: 100, retries: 0 }).call('Image_Activate', 'LINUX01');
    expect([resp.rc, resp.rs]).toEqual([0, 0]);
    expect(handler.calls).toHaveLength(2); // the hazard zthin accepts too: the call ran twice
    await delay(450);
  });

  it('fails with a retryable timeout error when the reply never comes in time', async () => {
    server.faults.delayMs = 300;
    server.faults.delayCount = 10;
    const c = client({ timeoutMs: 50, retries: 0, recoveryAttempts: 1 });
    const err = await c.call('Image_Activate', 'LINUX01').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HypervisorError);
    expect(err).toMatchObject({ rc: -103, retryable: true });
    expect((err as HypervisorError).cause).toBeInstanceOf(TimeoutError);
    expect(c.health()).toMatchObject({ totalFail: 1, continuousFail: 1 });
    await delay(350); // let the server's delayed replies drain before it closes
  });

  it('fails with a retryable error when nothing listens', async () => {
    const port = server.port;
    await server.close();
    const err = await createSmapiClient({ host: '127.0.0.1', port, auth, retries: 1, backoffMs: 1 })
      .call('Image_Activate', 'LINUX01').catch((e: unknown) => e);
    expect(err).toMatchObject({ rc: -101, retryable: true });
    await startServer(); // afterEach closes it
  });

  it('counts calls per host, function and outcome in the injected registry', async () => {
    const registry = new Registry();
    const c = client({ metrics: registry, name: 'zvm1' });
    await c.call('Image_Activate', 'LINUX01');
    await client({ metrics: registry, name: 'zvm1', auth: { userid: 'X', password: 'Y' } }).call('Image_Activate', 'LINUX01');
    const text = await registry.metrics();
    expect(text).toContain('zvm_smapi_calls_total{host="zvm1",function="Image_Activate",outcome="success"} 1');
    expect(text).toContain('zvm_smapi_calls_total{host="zvm1",function="Image_Activate",outcome="error"} 1');
    expect(text).toContain('zvm_smapi_call_duration_seconds_count{host="zvm1",function="Image_Activate"} 2');
    // idle pool: nothing in use, nothing waiting; a closed client no longer reports
    expect(text).toContain('zvm_smapi_connections_in_use{host="zvm1"} 0');
    await c.close();
  });

  it('labels a transport failure as such and without a name uses the address as host', async () => {
    const registry = new Registry();
    const port = server.port;
    await server.close();
    await createSmapiClient({ host: '127.0.0.1', port, auth, retries: 0, metrics: registry }).call('Image_Activate', 'LINUX01').catch(() => undefined);
    expect(await registry.metrics()).toContain('zvm_smapi_calls_total{host="127.0.0.1",function="Image_Activate",outcome="transport_error"} 1');
    await startServer();
  });
});

describe('SMAPI client asynchronous operations', () => {
  beforeEach(() => startServer());

  function asyncScript(final: number) {
    let polls = 0;
    handler.script = (req) => {
      if (req.fn === 'Image_Disk_Create_DM') return { rc: 592, rs: 0, output: { operation_id: 42 } };
      if (req.fn === 'Query_Asynchronous_Operation_DM') return { rc: 0, rs: ++polls < 3 ? 104 : final, output: {} };
      return { rc: 0, rs: 0, output: {} };
    };
  }

  const disk = {
    image_disk_number: '0101', image_disk_device_type: '3390', image_disk_allocation_type: 'AUTOG',
    allocation_area_name_or_volser: 'POOL1', allocation_unit_size: 1, image_disk_size: 100,
    image_disk_mode: 'MR', image_disk_formatting: 1,
  };

  it('polls Query_Asynchronous_Operation_DM after rc 592 until the operation is done', async () => {
    asyncScript(100);
    const resp = await client().callFn('Image_Disk_Create_DM', 'LINUX01', disk);
    expect([resp.rc, resp.rs]).toEqual([0, 0]);
    const polls = handler.calls.filter((c) => c.fn === 'Query_Asynchronous_Operation_DM');
    expect(polls).toHaveLength(3);
    expect(polls[0]).toEqual({ fn: 'Query_Asynchronous_Operation_DM', target: 'LINUX01', params: { operation_id: 42 } });
  });

  it('throws when the asynchronous operation failed (0/108)', async () => {
    asyncScript(108);
    const err = await client().callFn('Image_Disk_Create_DM', 'LINUX01', disk).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HypervisorError);
    expect(err).toMatchObject({ fn: 'Image_Disk_Create_DM', rc: 0, rs: 108 });
  });
});

describe('SMAPI client connection bound', () => {
  it('never has more than poolSize calls in flight', async () => {
    await startServer({ concurrency: 16 });
    let inFlight = 0;
    let peak = 0;
    handler.script = async () => {
      peak = Math.max(peak, ++inFlight);
      await delay(20);
      inFlight--;
      return { rc: 0, rs: 0, output: {} };
    };
    const c = client({ poolSize: 2 });
    await Promise.all(Array.from({ length: 8 }, () => c.call('Image_Activate', 'LINUX01')));
    expect(handler.calls).toHaveLength(8);
    expect(peak).toBe(2);
  });

  it('makes excess requests wait for a server worker', async () => {
    await startServer({ concurrency: 1 });
    let inFlight = 0;
    let peak = 0;
    handler.script = async () => {
      peak = Math.max(peak, ++inFlight);
      await delay(10);
      inFlight--;
      return { rc: 0, rs: 0, output: {} };
    };
    const c = client({ poolSize: 6 });
    const results = await Promise.all(Array.from({ length: 6 }, () => c.call('Image_Activate', 'LINUX01')));
    expect(results.every((r) => r.rc === 0)).toBe(true);
    expect(peak).toBe(1);
  });
});
