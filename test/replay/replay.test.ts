/**
 * Replay tier: every request of the reference's Python client (test/fixtures/rest-client-captures), byte for
 * byte over a raw TCP socket, against a standalone server with token auth on and off, and with token auth
 * over HTTPS (--tls-cert, as a site exposing standalone runs it). Each answer must be a
 * JSON envelope from the route the capture names (never 400 "Malformed JSON" for an empty body, 415, 404 or
 * 405); where the capture's objects exist, 200 with the reference's output shape.
 */
import { jest } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestStandalone, tempStateDir } from '../integration/standalone/helpers.js';
import { testPki } from '../integration/standalone/https.js';
import { groupCalls, loadCaptures, requestBytes, sendRaw, type CapturedCall, type RawResponse } from './captures.js';
import { SCENARIOS, type Expectation } from './scenario.js';
import { diskpoolShape, OUTPUT_SHAPES, shapeMismatches, type Shape } from './shapes.js';
import { ADMIN_TOKEN, ReplayWorld } from './world.js';

jest.setTimeout(600_000);

const CALLS = groupCalls(loadCaptures());
const ENVELOPE_KEYS = ['overallRC', 'modID', 'rc', 'rs', 'errmsg'];

function outputShape(call: CapturedCall): Shape {
  if (call.api === 'host_diskpool_get_info') return diskpoolShape(call.request.path.includes('details=True'));
  return OUTPUT_SHAPES[call.api] ?? 'str';
}

function expectationOf(call: CapturedCall): Expectation {
  const e = SCENARIOS[call.api]?.expect ?? { kind: 'ok' };
  return typeof e === 'function' ? e(call.variant, call.auth) : e;
}

/** Everything wrong with one answer, as readable lines ([] = as required). */
function judge(call: CapturedCall, res: RawResponse): string[] {
  const problems: string[] = [];
  if ([404, 405, 415].includes(res.status) && (res.json as { errmsg?: string } | undefined)?.errmsg?.includes('could not be found')) problems.push(`route refused: ${res.status}`);
  if (res.status === 405 || res.status === 415) problems.push(`transport-level refusal ${res.status}`);
  if (call.api === 'token_create' && expectationOf(call).kind === 'ok') {
    if (res.status !== 200 || !res.headers['x-auth-token']) problems.push(`POST /token: ${res.status}, X-Auth-Token ${res.headers['x-auth-token']}`);
    return problems;
  }
  const body = res.json as Record<string, unknown> | undefined;
  if (!body || ENVELOPE_KEYS.some((k) => !(k in body))) return [...problems, `no JSON envelope: ${res.status} ${res.text.slice(0, 200)}`];
  if (String(body.errmsg).startsWith('Malformed JSON')) problems.push(`Malformed JSON refusal: ${String(body.errmsg)}`);
  const want = expectationOf(call);
  if (want.kind === 'refused') {
    if (res.status !== want.status) problems.push(`expected ${want.status} (${want.why}), got ${res.status}: ${String(body.errmsg)}`);
    return problems;
  }
  if (res.status !== 200) return [...problems, `expected 200, got ${res.status}: ${String(body.errmsg)}`];
  return [...problems, ...shapeMismatches(outputShape(call), body.output)];
}

/** APIs whose every capture that the world could satisfy answered 200 with the reference's shape. */
const shapeOk = new Map<string, boolean>();

const MODES = [{ auth: 'none', transport: 'http' }, { auth: 'token', transport: 'http' }, { auth: 'token', transport: 'https' }] as const;

describe.each(MODES)('reference client captures replayed byte for byte (auth $auth, $transport)', ({ auth, transport }) => {
  const state = tempStateDir();
  let w: ReplayWorld;
  let ca: Buffer | undefined;
  beforeAll(async () => {
    const tokenFile = join(state.dir, 'admin-token');
    writeFileSync(tokenFile, `${ADMIN_TOKEN}\n`);
    const imageDir = join(state.dir, 'state', 'files');
    const pki = transport === 'https' ? await testPki(join(state.dir, 'pki')) : undefined;
    const tls = pki ? { tlsCert: pki.serving.cert, tlsKey: pki.serving.key } : {};
    const app = await startTestStandalone(join(state.dir, 'state'), { auth, adminTokenFile: tokenFile, imageDirs: [imageDir], ...tls });
    ca = pki && readFileSync(pki.caCert);
    w = new ReplayWorld(app, auth, imageDir, pki?.caCert);
  });
  afterAll(async () => {
    await w?.app.stop();
    state.cleanup();
  });

  const calls = CALLS.filter((c) => c.auth === auth);
  const order = Object.keys(SCENARIOS);
  const ordered = [...calls].sort((a, b) => order.indexOf(a.api) - order.indexOf(b.api));

  it('has a scenario for every API the captures hold', () => {
    expect(calls.map((c) => c.api).filter((api) => !(api in SCENARIOS))).toEqual([]);
    expect(new Set(calls.map((c) => c.api)).size).toBe(77);
  });

  it.each(ordered.map((c) => [`${c.api}/${c.variant}`, c] as const))('%s', async (_name, call) => {
    const scenario = SCENARIOS[call.api];
    await scenario.arrange?.(w, call.variant);
    let authToken: string | undefined;
    if (call.preToken) {
      const fetched = await sendRaw(w.port, requestBytes(call.preToken, { port: w.port, adminToken: ADMIN_TOKEN }), { ca });
      expect({ status: fetched.status, token: Boolean(fetched.headers['x-auth-token']) }).toEqual({ status: 200, token: true });
      authToken = fetched.headers['x-auth-token'];
    }
    const res = await sendRaw(w.port, requestBytes(call.request, { port: w.port, authToken }), { ca });
    const problems = judge(call, res);
    if (expectationOf(call).kind === 'ok') shapeOk.set(call.api, (shapeOk.get(call.api) ?? true) && problems.length === 0);
    await scenario.after?.(w, call.variant);
    expect(problems).toEqual([]);
  });
});

afterAll(() => {
  const good = [...shapeOk.entries()].filter(([, ok]) => ok).map(([api]) => api);
  const bad = [...shapeOk.entries()].filter(([, ok]) => !ok).map(([api]) => api);
  const all = new Set(CALLS.map((c) => c.api));
  const neverOk = [...all].filter((api) => !shapeOk.has(api));
  console.log(`replay: ${good.length} of ${all.size} APIs answered 200 with the reference's output shape on every capture that could succeed (auth on and off)`
    + `\n  not 200/shape: ${bad.join(', ') || '-'}\n  no capture can succeed here: ${neverOk.join(', ') || '-'}`);
});
