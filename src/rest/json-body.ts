/**
 * JSON request bodies, parsed once for every route: the app's content-type parser and the GET routes that
 * read a body themselves (GET /vswitch, GET /volumes/conn/{userid}) share these rules.
 */
import type { IncomingMessage } from 'node:http';
import { BadRequestError } from './feilong-error.js';

export const MALFORMED_EMPTY = 'Malformed JSON: Expecting value: line 1 column 1 (char 0)';

/** Deeper bodies are refused before parsing: validation and error messages walk them recursively. */
export const MAX_JSON_DEPTH = 256;

/** The deepest bracket nesting of a JSON text (brackets inside strings do not count). */
export function computeJsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** A non-empty JSON text → its value; unparsable or too deep → 400 "Malformed JSON" envelope. */
export function parseJsonText(text: string): unknown {
  if (text.trim() === '') throw new BadRequestError(MALFORMED_EMPTY);
  if (computeJsonDepth(text) > MAX_JSON_DEPTH) throw new BadRequestError(`Malformed JSON: nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new BadRequestError(`Malformed JSON: ${(err as Error).message}`);
  }
}

/** The body of a request fastify does not parse (a GET), read and parsed by the rules above. */
export async function readJsonBody(raw: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of raw) chunks.push(chunk as Buffer);
  return parseJsonText(Buffer.concat(chunks).toString('utf8'));
}
