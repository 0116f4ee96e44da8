/**
 * Asks a Node process started with `--inspect=127.0.0.1:0` (through NODE_OPTIONS) for a full garbage
 * collection, then for its heap in use: the live heap, without the garbage whose amount depends on when
 * V8 last collected (which made RSS differences between replicas noise of tens of MB).
 */
import { readFileSync } from 'node:fs';

/** The inspector's WebSocket address, from the line Node writes to the process's log at start. */
export function inspectorUrl(logPath: string): string | undefined {
  return /Debugger listening on (ws:\/\/\S+)/.exec(readFileSync(logPath, 'utf8'))?.[1];
}

interface Reply {
  id: number;
  result?: { result?: { value?: unknown } };
  error?: { message: string };
}

/** Full GC, then `process.memoryUsage().heapUsed` of the process behind `url`. */
export async function liveHeapBytes(url: string, timeoutMs = 30_000): Promise<number> {
  const ws = new WebSocket(url);
  const pending = new Map<number, (reply: Reply) => void>();
  let next = 0;
  const send = (method: string, params: Record<string, unknown> = {}): Promise<Reply> => new Promise((resolve) => {
    next += 1;
    pending.set(next, resolve);
    ws.send(JSON.stringify({ id: next, method, params }));
  });
  const timer = setTimeout(() => ws.close(), timeoutMs);
  try {
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = () => reject(new Error(`inspector ${url}: could not connect`));
    });
    ws.onmessage = (m: MessageEvent) => {
      const reply = JSON.parse(String(m.data)) as Reply;
      pending.get(reply.id)?.(reply);
    };
    const gc = await send('HeapProfiler.collectGarbage');
    if (gc.error) throw new Error(`inspector ${url}: ${gc.error.message}`);
    const used = await send('Runtime.evaluate', { expression: 'process.memoryUsage().heapUsed', returnByValue: true });
    const value = Number(used.result?.result?.value);
    if (!Number.isFinite(value)) throw new Error(`inspector ${url}: no heap figure (${JSON.stringify(used)})`);
    return value;
  } finally {
    clearTimeout(timer);
    ws.close();
  }
}
