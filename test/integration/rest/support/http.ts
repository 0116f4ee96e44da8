import type { FastifyInstance } from 'fastify';

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  json(): any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test assertions read arbitrary envelopes
}

export interface RequestOptions {
  method: string;
  url: string;
  headers?: Record<string, string>;
  /** a string is sent as text/plain unless headers say otherwise (fetch); bytes go without a Content-Type */
  payload?: string | Uint8Array<ArrayBuffer>;
}

/**
 * Real HTTP on 127.0.0.1 (port 0). fastify's inject() cannot run under Jest on Node 20: its
 * light-my-request requires the ESM-only `cookie` 2, which Jest's module loader refuses.
 */
export async function listenLocal(app: FastifyInstance): Promise<(opts: RequestOptions) => Promise<HttpResponse>> {
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return async ({ method, url, headers, payload }) => {
    const res = await fetch(`${address}${url}`, { method, headers, body: payload });
    const body = await res.text();
    return {
      statusCode: res.status,
      headers: Object.fromEntries(res.headers.entries()),
      body,
      json: () => JSON.parse(body),
    };
  };
}
