import { statSync } from 'node:fs';
import { createSimHost, type SimHost } from '../hypervisor/sim/index.js';
import type { SmapiHandler } from '../hypervisor/index.js';

/**
 * REST's view of a simulated host that a controller (another process, maybe another pod) drives: its
 * state file, loaded again whenever the controller has replaced it. The simulator replaces the file
 * by rename, so every load sees one whole state. Only queries come through here (REST never writes
 * to a host), and a query changes nothing to save, so this view never writes the file.
 */
export function createSimStateView(statePath: string): SmapiHandler & { close(): Promise<void> } {
  let stamp = '';
  let sim: SimHost | undefined;

  function current(): SimHost {
    const st = statSync(statePath, { throwIfNoEntry: false });
    const next = st ? `${st.ino}:${st.mtimeMs}:${st.size}` : 'absent';
    if (!sim || next !== stamp) {
      // an older view may still be answering a query: it holds no file, so it is simply dropped
      sim = createSimHost({ statePath: st ? statePath : undefined });
      stamp = next;
    }
    return sim;
  }

  return {
    handle: (req) => current().handle(req),
    close: async () => {
      await sim?.close();
    },
  };
}
