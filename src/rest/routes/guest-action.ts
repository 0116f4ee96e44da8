import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Envelope, ok } from '../envelope.js';
import { BadRequestError } from '../feilong-error.js';
import { GUEST_ACTIONS } from '../guests/actions.js';
import { UseridParams } from '../schemas.js';
import { DOC_ONLY, validateOrThrow } from '../validation.js';
import type { RouteDeps } from './route-deps.js';

/** Documented for OpenAPI; the body is checked per action below (docs/rest-interface.md §1.4). */
const ActionBody = Type.Object(
  { action: Type.String({ enum: Object.keys(GUEST_ACTIONS) }) },
  { additionalProperties: true, [DOC_ONLY]: true, description: 'action plus the fields of that action' },
);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The older releases' dict form of `action`: `{"action": {"action": "start", ...fields}}` or
 * `{"action": {"resize_cpus": {"cpu_cnt": 2}}}` (one key naming the action, its fields as value).
 */
function fromDictForm(dict: Record<string, unknown>, outer: Record<string, unknown>): { action: unknown; rest: Record<string, unknown> } {
  if ('action' in dict) {
    const { action, ...fields } = dict;
    return { action, rest: { ...outer, ...fields } };
  }
  const keys = Object.keys(dict);
  if (keys.length !== 1) return { action: undefined, rest: outer };
  const value = dict[keys[0]];
  return { action: keys[0], rest: { ...outer, ...(isObject(value) ? value : {}) } };
}

function actionOf(body: unknown): { name: string; rest: Record<string, unknown> } {
  if (!isObject(body)) throw new BadRequestError('action not exist or is empty');
  const { action: given, ...outer } = body;
  const { action, rest } = isObject(given) ? fromDictForm(given, outer) : { action: given, rest: outer };
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
