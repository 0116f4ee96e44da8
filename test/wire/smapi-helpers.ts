/** Helpers for SMAPI wire tests: a scriptable in-test handler and a raw socket exchange. */
import net from 'node:net';
import type { SmapiHandler, SmapiRequest, SmapiResponse } from '../../src/hypervisor/smapi/types.js';

export type Script = (req: SmapiRequest) => SmapiResponse | Promise<SmapiResponse>;

export interface ScriptedHandler extends SmapiHandler {
  calls: SmapiRequest[];
  script: Script;
}

export function scriptedHandler(script: Script = () => ({ rc: 0, rs: 0, output: {} })): ScriptedHandler {
  const h: ScriptedHandler = {
    calls: [],
    script,
    async handle(req) {
      h.calls.push(req);
      return h.script(req);
    },
  };
  return h;
}

/** Sends raw bytes (then half-closes if asked) and collects everything until the server closes. */
export function rawExchange(port: number, bytes: Buffer, halfClose = false, timeoutMs = 5000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    const parts: Buffer[] = [];
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error('raw exchange timed out'));
    }, timeoutMs);
    sock.on('connect', () => {
      sock.write(bytes);
      if (halfClose) sock.end();
    });
    sock.on('data', (c) => parts.push(c));
    sock.on('error', () => undefined);
    sock.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(parts));
    });
  });
}

/** rc and rs of a raw two-phase reply (request id, length, request id, rc, rs, …). */
export function rcRsOf(reply: Buffer): [number, number] {
  return [reply.readInt32BE(12), reply.readInt32BE(16)];
}
