import type { SmapiOutput } from '../smapi/types.js';
import type { ResolvedSimConfig } from './config.js';
import type { Params } from './params.js';
import type { SimState } from './state.js';

/** What a function handler may touch. */
export interface SimContext {
  state: SimState;
  config: ResolvedSimConfig;
}

/** A successful answer; failures are thrown as SimFault. rc 0 unless said otherwise. */
export interface Reply {
  rc?: number;
  rs?: number;
  output?: SmapiOutput;
}

export type Handler = (ctx: SimContext, target: string, p: Params) => Reply | void;

export interface HandlerSpec {
  handler: Handler;
  /** true when a success may change persisted state (schedules a state write) */
  mutates: boolean;
  /**
   * 'user': the target is a userid (validated, upper-cased); 'any': passed through upper-cased
   * (host-wide queries ignore it, Image_Status_Query accepts '*').
   */
  target: 'user' | 'any';
}

export function spec(handler: Handler, mutates: boolean, target: 'user' | 'any' = 'user'): HandlerSpec {
  return { handler, mutates, target };
}
