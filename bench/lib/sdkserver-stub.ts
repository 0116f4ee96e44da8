/**
 * The reference's SDK server side, stubbed for `--only reference` (bench/reference-rest.ts): a TCP server on
 * loopback speaking feilong's sdkserver wire protocol (shared/reference/feilong-rest.md §0): one connection
 * per call, the client sends one JSON array `[api_name, [args], {kwargs}]`, the server answers one JSON
 * envelope `{overallRC, modID, rc, rs, errmsg, output}` and closes. It answers from `guests` generated
 * guests what SDKAPI returns for the three calls the measured routes make, at once: it stands for the
 * SDK and the hypervisor behind it, so its CPU is not the REST layer's and is not counted.
 */
import { createServer, type Server, type Socket } from 'node:net';

export interface SdkServerStub {
  port: number;
  /** calls answered, by API name */
  calls: Record<string, number>;
  close(): Promise<void>;
}

type Envelope = { overallRC: number; modID: number | null; rc: number; rs: number; errmsg: string; output: unknown };

const ok = (output: unknown): Envelope => ({ overallRC: 0, modID: null, rc: 0, rs: 0, errmsg: '', output });
/** notExist of the guest module (overallRC 404, modID 10, rs 1), as SDKAPI answers for a userid not in its DB */
const guestNotFound = (userid: string): Envelope => ({ overallRC: 404, modID: 10, rc: 404, rs: 1, errmsg: `Guest '${userid}' does not exist.`, output: '' });

/** host_get_info's output shape (feilong-rest.md §5.6) */
const HOST_INFO = {
  zcc_userid: 'ZCCUID', zvm_host: 'SIMHOST', hypervisor_hostname: 'SIMHOST', hypervisor_type: 'zvm', hypervisor_version: 730,
  vcpus: 6, vcpus_used: 6, cpu_info: { architecture: 's390x', cec_model: '3931' }, memory_mb: 51200.0, memory_mb_used: 37376.0,
  ipl_time: 'IPL at 11/01/26 08:00:00 UTC', disk_total: 3623, disk_used: 566, disk_available: 3057,
};

/** The answer of SDKAPI `api(...args)` over `userids` (upper case, as guest_list returns them). */
export function answer(userids: Set<string>, api: string, args: unknown[]): Envelope {
  switch (api) {
    case 'guest_list':
      return ok([...userids]);
    case 'guest_get_power_state': {
      const userid = String(args[0] ?? '').toUpperCase();
      return userids.has(userid) ? ok('on') : guestNotFound(userid);
    }
    case 'host_get_info':
      return ok(HOST_INFO);
    default:
      // the stub knows only the measured routes' calls; say so instead of pretending
      return { overallRC: 500, modID: null, rc: 500, rs: 1, errmsg: `bench stub: ${api} is not stubbed`, output: '' };
  }
}

export async function startSdkServerStub(userids: string[]): Promise<SdkServerStub> {
  const known = new Set(userids.map((u) => u.toUpperCase()));
  const calls: Record<string, number> = {};
  const serve = (socket: Socket) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      text += chunk;
      let request: unknown;
      try {
        request = JSON.parse(text);
      } catch {
        return; // not all of it yet: the client sends the array and waits
      }
      const [api, args] = request as [string, unknown[]];
      calls[api] = (calls[api] ?? 0) + 1;
      socket.end(JSON.stringify(answer(known, api, args ?? [])));
    });
  };
  const server: Server = createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { port, calls, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
