import { AlreadyExistsError, HypervisorError, InvalidSpecError, NotFoundError, TimeoutError, UnauthorizedError } from '../../../src/errors.js';
import { computeHttpStatus } from '../../../src/rest/envelope.js';
import { computeErrorReply, INTERNAL_TEXT } from '../../../src/rest/error-handler.js';
import { BadRequestError, RequestValidationError, feilongErrors } from '../../../src/rest/feilong-error.js';

const f = (overallRC: number, rc: number, rs: number, errmsg = '') => ({ overallRC, modID: 1, rc, rs, errmsg });

describe('HTTP status of an envelope (docs/rest-interface.md §2.2)', () => {
  it.each([
    ['success', f(0, 0, 0), 200],
    ['REST error', f(400, 400, 1), 400],
    ['not exist', f(404, 404, 1), 404],
    ['conflict', f(409, 409, 4), 409],
    ['not implemented', f(501, 501, 1), 501],
    ['busy', f(503, 503, 1), 503],
    ['SDK input', f(100, 100, 3), 400],
    ['guest not found on SMAPI', f(8, 400, 4), 404],
    ['image not active', f(8, 200, 4), 404],
    ['vswitch not found', f(8, 212, 40), 404],
    ['pool not found', f(4, 5, 402), 404],
    ['definition exists', f(8, 400, 8), 409],
    ['guest powered off', f(300, 300, 5), 409],
    ['deploy target missing', f(300, 300, 3, 'DASD 0100 not linked; not in CP directory'), 404],
    ['other SMAPI failure', f(8, 596, 3658), 500],
    ['internal', f(500, 500, 1), 500],
  ])('%s', (_name, fields, status) => {
    expect(computeHttpStatus(fields)).toBe(status);
  });
});

describe('typed errors to envelopes', () => {
  it('sends validation failures as the Fault body with the ValidationError prefix', () => {
    expect(computeErrorReply(new RequestValidationError("'x' is too long"))).toEqual({
      status: 400, body: { overallRC: 400, rc: 400, rs: 400, modID: 120, output: '', errmsg: "ValidationError: Validation error: 'x' is too long" },
    });
  });

  it('sends handler 400s without the prefix', () => {
    expect(computeErrorReply(new BadRequestError('action fly is invalid')).body).toMatchObject({ rs: 400, errmsg: 'action fly is invalid' });
  });

  it('sends 401 with rs 401 but overallRC 400, as the reference', () => {
    const reply = computeErrorReply(new UnauthorizedError('no token'));
    expect(reply.status).toBe(401);
    expect(reply.body).toMatchObject({ overallRC: 400, rc: 400, rs: 401, modID: 120 });
  });

  it('keeps the fields of a feilong error and derives the status from them', () => {
    expect(computeErrorReply(feilongErrors.guestPoweredOff('X', 'pause'))).toMatchObject({ status: 409, body: { overallRC: 300, modID: 10, rc: 300, rs: 5 } });
  });

  it('answers a live read that got no SMAPI answer with the reference\'s SMAPI-down result, HTTP 503', () => {
    const reply = computeErrorReply(new HypervisorError('Image_Status_Query', -101, 0, 'Image_Status_Query: connect ECONNREFUSED 127.0.0.1:44444', { retryable: true }));
    expect(reply).toMatchObject({ status: 503, body: { overallRC: 500, modID: 1, rc: -110, rs: 0 } });
    expect((reply.body as { errmsg: string }).errmsg).toMatch(/^SMAPI did not answer: .*ECONNREFUSED.*SMAPI down issue\.$/);
  });

  it('maps a HypervisorError through overallRC 8 and the hooks', () => {
    expect(computeErrorReply(new HypervisorError('Image_Query_DM', 400, 4, 'not found'))).toMatchObject({ status: 404, body: { overallRC: 8, modID: 1, rc: 400, rs: 4 } });
  });

  it('answers a SMAPI parameter syntax error (rc 24) with 400: the request supplied the bad value', () => {
    expect(computeErrorReply(new HypervisorError('Image_Volume_Space_Query_DM', 24, 413, 'too long'))).toMatchObject({ status: 400, body: { overallRC: 8, modID: 1, rc: 24, rs: 413 } });
  });

  it.each([
    [new NotFoundError('gone'), 404, 404],
    [new AlreadyExistsError('there'), 409, 409],
    [new InvalidSpecError('bad spec', []), 400, 100],
    [new TimeoutError('slow'), 500, 500],
  ])('maps %p to %i', (err, status, overallRC) => {
    const reply = computeErrorReply(err);
    expect(reply.status).toBe(status);
    expect(reply.body).toMatchObject({ overallRC });
  });

  it('answers anything unexpected 500 without the error text', () => {
    const reply = computeErrorReply(new TypeError('secret internals'));
    expect(reply.status).toBe(500);
    expect(reply.body).toMatchObject({ rs: 500, errmsg: INTERNAL_TEXT });
    expect(JSON.stringify(reply.body)).not.toContain('secret');
  });

  it('keeps a framework 4xx (e.g. an unsupported media type) a 4xx', () => {
    const err = Object.assign(new Error('Unsupported Media Type'), { statusCode: 415 });
    expect(computeErrorReply(err).status).toBe(415);
  });
});
