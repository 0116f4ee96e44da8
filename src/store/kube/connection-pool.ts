/**
 * One connection pool to the apiserver per process. client-node 1.4 builds a new https.Agent for every
 * request (KubeConfig.createAgent, called from applySecurityAuthentication and applyToHTTPSOptions), so
 * every call parses the client key again and does a full TLS handshake. pooled() makes a KubeConfig
 * hand out shared keep-alive agents instead, built once per server and TLS material, over one TLS
 * context: requests share a bounded set of sockets; watches, which hold a socket for minutes, get their
 * own agent so that they never take the sockets requests wait for.
 */
import { createHash } from 'node:crypto';
import type { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions } from 'node:https';
import { createSecureContext, type TLSSocket } from 'node:tls';
import type { Cluster, KubeConfig } from '@kubernetes/client-node';

/** Sockets per apiserver for requests other than watches; more callers queue on the agent. */
export const MAX_REQUEST_SOCKETS = 16;
/**
 * An idle socket is closed by us after this long, ahead of a server-side idle timeout (or a load
 * balancer's): a request sent on a socket the server is closing fails with "socket hang up". (Node
 * destroys only free sockets on this timeout; requests keep their own bounds.)
 */
const IDLE_SOCKET_MS = 30_000;

interface AgentPair {
  requests: HttpsAgent;
  watches: HttpsAgent;
}
/** client-node's private factory, overridden per instance. */
type CreateAgent = (cluster: Cluster | null, options: AgentOptions) => HttpAgent | HttpsAgent;
interface Poolable {
  createAgent: CreateAgent;
  [POOLED]?: true;
}

const POOLED = Symbol('zvm.pooled');
const pairs = new Map<string, AgentPair>();
const watchAgentOf = new WeakMap<object, HttpsAgent>();
let handshakes = 0;

/** TLS handshakes completed on the shared agents since the process started (tests and diagnostics). */
export function kubeTlsHandshakes(): number {
  return handshakes;
}

type Material = unknown[];
const materialOf = (o: AgentOptions): Material => [o.ca, o.cert, o.key, o.pfx, o.passphrase, o.rejectUnauthorized, o.servername];

function materialKey(cluster: Cluster, material: Material): string {
  const hash = createHash('sha256');
  for (const part of material) hash.update(part === undefined || part === null ? '-' : typeof part === 'boolean' ? String(part) : (part as string | Buffer)).update('\0');
  return `${cluster.server} ${hash.digest('hex')}`;
}

const samePart = (a: unknown, b: unknown): boolean => a === b || (Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b));
const sameMaterial = (a: Material, b: Material): boolean => a.length === b.length && a.every((part, i) => samePart(part, b[i]));

/**
 * The pair a cluster used last, with the material it was built from: client-node asks for an agent on
 * every request, and comparing the material costs less than hashing it (issue 23's profile).
 */
const lastOf = new WeakMap<Cluster, { material: Material; pair: AgentPair }>();

function counted(agent: HttpsAgent): HttpsAgent {
  const create = (agent as unknown as { createConnection: (...args: unknown[]) => TLSSocket }).createConnection.bind(agent);
  (agent as unknown as { createConnection: (...args: unknown[]) => TLSSocket }).createConnection = (...args) => {
    const socket = create(...args);
    socket.once('secureConnect', () => (handshakes += 1));
    return socket;
  };
  return agent;
}

function buildPair(o: AgentOptions): AgentPair {
  // One TLS context: the key and certificates are parsed once, not per connection.
  const secureContext = createSecureContext({ ca: o.ca, cert: o.cert, key: o.key, pfx: o.pfx, passphrase: o.passphrase });
  const tls: AgentOptions = { secureContext, servername: o.servername, ...(o.rejectUnauthorized !== undefined ? { rejectUnauthorized: o.rejectUnauthorized } : {}) };
  return {
    requests: counted(new HttpsAgent({ ...tls, keepAlive: true, maxSockets: MAX_REQUEST_SOCKETS, maxFreeSockets: MAX_REQUEST_SOCKETS, timeout: IDLE_SOCKET_MS })),
    watches: counted(new HttpsAgent({ ...tls, keepAlive: true })),
  };
}

function sharedPair(cluster: Cluster, o: AgentOptions): AgentPair {
  const material = materialOf(o);
  const last = lastOf.get(cluster);
  if (last && sameMaterial(last.material, material)) return last.pair;
  // new or changed material (a rotated certificate): the pair built for it, in this or another KubeConfig
  const key = materialKey(cluster, material);
  let pair = pairs.get(key);
  if (!pair) {
    pairs.set(key, (pair = buildPair(o)));
    watchAgentOf.set(pair.requests, pair.watches);
  }
  lastOf.set(cluster, { material, pair });
  return pair;
}

/** TLS set-up is what costs; plain HTTP (kubectl proxy, test servers) and proxies keep client-node's agents. */
const poolable = (cluster: Cluster | null): cluster is Cluster => Boolean(cluster && !cluster.proxyUrl && cluster.server.startsWith('https:'));

/** The watch agent paired with a shared request agent (undefined for any other agent). */
export function watchAgentFor(agent: unknown): HttpsAgent | undefined {
  return typeof agent === 'object' && agent !== null ? watchAgentOf.get(agent) : undefined;
}

/** Makes `kubeconfig` use the process's shared agents (idempotent; returns it). */
export function pooled(kubeconfig: KubeConfig): KubeConfig {
  const kc = kubeconfig as unknown as Poolable;
  if (kc[POOLED]) return kubeconfig;
  kc[POOLED] = true;
  const ownCreate = kc.createAgent.bind(kubeconfig);
  kc.createAgent = (cluster, options) => (poolable(cluster) ? sharedPair(cluster, options).requests : ownCreate(cluster, options));
  return kubeconfig;
}
