/** The SMAPI server's answers to bad input, over real loopback TCP. */
import { randomBytes } from 'node:crypto';
import { encodeRequest } from '../../src/hypervisor/smapi/codec.js';
import { WireWriter } from '../../src/hypervisor/smapi/wire.js';
import { createSmapiServer } from '../../src/hypervisor/smapi/server.js';
import type { SmapiServer } from '../../src/hypervisor/smapi/server.js';
import { rawExchange, rcRsOf, scriptedHandler } from './smapi-helpers.js';

const auth = { userid: 'MAINT', password: 'SECRET' };
const handler = scriptedHandler();
let server: SmapiServer;

beforeAll(async () => {
  server = await createSmapiServer({ handler, auth, port: 0 });
});
afterAll(() => server.close());

const frame = (fn: string, params: Record<string, unknown> = {}, who = auth) => encodeRequest({ fn, target: 'LINUX01', params }, who);

describe('SMAPI server', () => {
  it('sends the request id first, then length, the same id, rc and rs', async () => {
    const reply = await rawExchange(server.port, frame('Image_Activate'));
    expect(reply.length).toBe(20);
    expect(reply.readUInt32BE(4)).toBe(12);
    expect(reply.readUInt32BE(8)).toBe(reply.readUInt32BE(0));
    expect(rcRsOf(reply)).toEqual([0, 0]);
  });

  it('answers 120/0 to bad credentials without calling the handler', async () => {
    const before = handler.calls.length;
    const reply = await rawExchange(server.port, frame('Image_Activate', {}, { userid: 'MAINT', password: 'WRONG' }));
    expect(rcRsOf(reply)).toEqual([120, 0]);
    expect(handler.calls.length).toBe(before);
  });

  it('answers 900/12 to an unknown function', async () => {
    const unknown = new WireWriter().prefixed((w) => w.str('Foo_Bar').str('MAINT').str('SECRET').str('LINUX01')).toBuffer();
    expect(rcRsOf(await rawExchange(server.port, unknown))).toEqual([900, 12]);
  });

  it('answers 900/20 when the client stops before the announced length', async () => {
    const f = frame('Image_Activate');
    const short = Buffer.from(f);
    short.writeUInt32BE(f.length + 10, 0);
    expect(rcRsOf(await rawExchange(server.port, short, true))).toEqual([900, 20]);
  });

  it('answers rc 24 to malformed parameters', async () => {
    const f = frame('Image_Disk_Create', { image_disk_number: '0100', image_disk_mode: 'MR' });
    const cut = Buffer.from(f.subarray(0, f.length - 1));
    cut.writeUInt32BE(cut.length - 4, 0);
    const [rc, rs] = rcRsOf(await rawExchange(server.port, cut));
    expect([rc, rs]).toEqual([24, 288]);
  });

  it('answers 4/4 to Response_Recovery of an unknown request id', async () => {
    expect(rcRsOf(await rawExchange(server.port, frame('Response_Recovery', { failed_request_id: 999999 })))).toEqual([4, 4]);
  });

  it('survives random bytes and keeps serving', async () => {
    for (let i = 0; i < 30; i++) await rawExchange(server.port, randomBytes(1 + ((i * 37) % 200)), true);
    expect(rcRsOf(await rawExchange(server.port, frame('Image_Activate')))).toEqual([0, 0]);
  });
});
