import { aRestWorld, type RestWorld } from './support/world.js';

describe('REST routing errors answer with the JSON envelope', () => {
  let w: RestWorld;
  beforeAll(async () => { w = await aRestWorld(); });
  afterAll(async () => { await w.close(); });

  it('answers an unknown path 404 with an envelope', async () => {
    const res = await w.inject({ method: 'GET', url: '/nothing/here' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toMatchObject({ overallRC: 404, rc: 404, modID: 120, output: '' });
  });

  it('does not match a trailing slash', async () => {
    expect((await w.inject({ method: 'GET', url: '/guests/' })).statusCode).toBe(404);
  });

  it('answers a wrong method 405 with Allow in declaration order', async () => {
    const res = await w.inject({ method: 'PUT', url: '/guests' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST, GET');
    expect(res.json()).toMatchObject({ overallRC: 405, errmsg: 'The method PUT is not allowed for this resource.' });
  });

  it('answers HEAD with 405 since HEAD is never routed', async () => {
    const res = await w.inject({ method: 'HEAD', url: '/' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET');
  });

  it('lets /guests/stats shadow /guests/{userid} for every method', async () => {
    const res = await w.inject({ method: 'DELETE', url: '/guests/stats' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET');
  });

  it.each([
    ['a 60 kB URL', { url: `/guests/${'A'.repeat(60_000)}` }],
    ['a 20 kB header', { url: '/guests', headers: { 'x-big': 'b'.repeat(20_000) } }],
  ])('answers %s (past the parser\'s header limit) 431 with the JSON Fault envelope', async (_what, req) => {
    const res = await w.inject({ method: 'GET', ...req });
    expect(res.statusCode).toBe(431);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.json()).toEqual({
      overallRC: 400, rc: 400, rs: 431, modID: 120, output: '',
      errmsg: 'Request Header Fields Too Large: the request line and headers exceed the server limit (16 KiB)',
    });
  });

  it('answers unparsable JSON 400 with the Malformed JSON envelope', async () => {
    const res = await w.inject({ method: 'POST', url: '/guests', headers: { 'content-type': 'application/json' }, payload: '{"guest": ' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ overallRC: 400, rc: 400, rs: 400, modID: 120 });
    expect(res.json().errmsg).toMatch(/^Malformed JSON: /);
  });

  it('answers a missing body of a body route 400 Malformed JSON', async () => {
    const res = await w.inject({ method: 'POST', url: '/guests' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errmsg).toBe('Malformed JSON: Expecting value: line 1 column 1 (char 0)');
  });

  it('marks every response cache-control: no-cache', async () => {
    const res = await w.inject({ method: 'GET', url: '/' });
    expect(res.headers['cache-control']).toBe('no-cache');
  });

  it('answers GET / with the version in its own key order', async () => {
    const res = await w.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json())).toEqual(['rs', 'overallRC', 'modID', 'rc', 'errmsg', 'output']);
    expect(res.json().output).toEqual({ version: '1.6.7', api_version: '1.0', max_version: '1.0', min_version: '1.0' });
  });

  it('serves the hypervisor counters enveloped and un-enveloped', async () => {
    const a = await w.inject({ method: 'GET', url: '/smapi_health' });
    expect(a.json()).toMatchObject({ overallRC: 0, output: { healthy: true, totalFail: 0 } });
    const b = await w.inject({ method: 'GET', url: '/smapi-healthy' });
    expect(b.json()).toEqual({ SMAPI: a.json().output });
  });

  it('serves an OpenAPI document naming every route with {param} paths', async () => {
    const res = await w.inject({ method: 'GET', url: '/openapi.json' });
    const doc = res.json();
    expect(doc.openapi).toBe('3.0.3');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/', '/token', '/guests', '/guests/{userid}', '/guests/{userid}/action', '/guests/{userid}/disks']));
    const guest = doc.paths['/guests'].post.requestBody.content['application/json'].schema.properties.guest;
    // vcpus and memory are required only without our `class` extension (checked after the schema)
    expect(guest.required).toEqual(['userid']);
    expect(guest.description).toBe('vcpus and memory are required unless class names a ZGuestClass');
    expect(Object.keys(guest.properties)).toEqual(expect.arrayContaining(['vcpus', 'memory', 'class']));
    expect(doc.paths['/guests/{userid}'].delete.parameters[0]).toMatchObject({ name: 'userid', in: 'path', required: true });
  });
});

describe('REST content types', () => {
  let w: RestWorld;
  beforeAll(async () => { w = await aRestWorld(); });
  afterAll(async () => { await w.close(); });

  it('sends JSON as application/json without a charset', async () => {
    expect((await w.inject({ method: 'GET', url: '/guests' })).headers['content-type']).toBe('application/json');
  });

  it('answers an unsupported body type 415 with the Fault body', async () => {
    const res = await w.inject({ method: 'POST', url: '/guests', headers: { 'content-type': 'text/xml' }, payload: '<a/>' });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ overallRC: 400, rs: 415, modID: 120 });
  });

  it.each(['text/plain', 'text/xml', 'application/x-www-form-urlencoded'])('answers a %s body 415 naming Content-Type: application/json', async (type) => {
    const res = await w.inject({ method: 'POST', url: '/guests', headers: { 'content-type': type }, payload: '{"guest":{"userid":"A1","vcpus":1,"memory":1024}}' });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ overallRC: 400, rs: 415, modID: 120 });
    expect(res.json().errmsg).toContain('Content-Type: application/json');
  });

  it('answers a body without Content-Type 400 as the reference does, naming Content-Type: application/json', async () => {
    const payload = new TextEncoder().encode('{"guest":{"userid":"A1","vcpus":1,"memory":1024}}');
    const res = await w.inject({ method: 'POST', url: '/guests', payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().errmsg).toMatch(/^content-type header required when content-length > 0: .*Content-Type: application\/json/);
    expect(await w.guest('a1')).toBeUndefined();
  });

  it('names the query parameter in query validation errors', async () => {
    const res = await w.inject({ method: 'GET', url: '/guests/stats?userid=' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errmsg).toBe("ValidationError: Validation error: Invalid input for query parameters userid. Value: . '' is too short");
  });
});
