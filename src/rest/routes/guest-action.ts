import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Envelope, ok } from '../envelope.js';
import { BadRequestError } from '../feilong-error.js';
import { GUEST_ACTIONS } from '../guests/actions.js';
import { UseridParams } from '../schemas.js';
import { DOC_ONLY, validateOrThrow } from '../validation.js';
import type { RouteDeps } from './route-deps.js';

/** Documented for OpenAPI; the body is checked per action below (feilong-rest.md §1.4). */
const ActionBody = Type.Object(
  { action: Type.String({ enum: Object.keys(GUEST_ACTIONS) }) },
  { additionalProperties: true, [DOC_ONLY]: true, description: 'action plus the fields of that action' },
);

function actionOf(body: unknown): { name: string; rest: Record<string, unknown> } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new BadRequestError('action not exist or is empty');
  const { action, ...rest } = body as Record<string, unknown>;
  if (action === undefined || action === null || action === '') throw new BadRequestError('action not exist or is empty');
  if (typeof action !== 'string' || !Object.hasOwn(GUEST_ACTIONS, action)) throw new BadRequestError(`action ${String(action)} is invalid`);
  return { name: action, rest };
}

/** POST /guests/{userid}/action. */
const guestActionRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { guests }) => {
  app.post('/guests/:userid/action', {
    schema: {
      summary: 'Run an action on a guest (power, reboot/reset, resize, console, register/deregister)',
      tags: ['guests'], params: UseridParams, body: ActionBody, response: { 200: Envelope(Type.Unknown()) },
    },
  }, async (req) => {
    const { name, rest } = actionOf(req.body);
    const action = GUEST_ACTIONS[name]!;
    validateOrThrow(action.schema, rest);
    if (action.managed === false) return ok(await action.run(guests, req.params.userid));
    const guest = await guests.require(req.params.userid);
    return ok(await action.run({ service: guests, guest, body: rest }));
  });
};

export default guestActionRoutes;
