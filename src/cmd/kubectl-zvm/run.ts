/** What every verb shares: connecting, printing, and errors as one line a person can act on. */
import { isZvmError } from '../../errors.js';
import { FieldOwnedError } from '../../store/kube/field-owners.js';
import { connect, type Backend, type GlobalOptions } from './connect.js';

export interface VerbOptions extends GlobalOptions {
  /** return once status says it happened (else once the change is written) */
  wait?: boolean;
  /** bound on --wait */
  timeoutMs: number;
}

export type Out = (line: string) => void;

const out: Out = (line) => void process.stdout.write(`${line}\n`);

/** One line for a person: who owns a field and how to go on, else the error's own message. */
export function describeError(err: unknown): string {
  if (err instanceof FieldOwnedError) {
    const who = err.owners.map((o) => `${o.fields.join(', ')} (managed by "${o.manager}")`).join(' and ');
    return `conflict: ${who}; change it where it is managed, or pass --take-over`;
  }
  const message = err instanceof Error ? err.message : String(err);
  // REST's envelope text for a controller's refusal (the reference's words) says nothing to a person here
  return message.replace(/^Unexpected internal error in ZVM SDK, error: /, 'the controller refused: ');
}

/** Runs a verb against the backend and always closes it; an error becomes the exit status 1. */
export async function connectedTo(opts: GlobalOptions, verb: (b: Backend, print: Out) => Promise<void>): Promise<void> {
  const b = await connect(opts);
  try {
    await verb(b, out);
  } finally {
    await b.close();
  }
}

/**
 * Runs a write-and-wait of REST's (bounded by 0 without --wait): without --wait, "not there yet" is
 * the expected answer and `requested` says the change is on its way; any other error stands.
 */
export async function writeAndMaybeWait(wait: boolean | undefined, work: () => Promise<unknown>, done: () => void, requested: () => void): Promise<void> {
  try {
    await work();
  } catch (err) {
    if (wait || !(isZvmError(err) && err.code === 'TIMEOUT')) throw err;
    return requested();
  }
  done();
}
