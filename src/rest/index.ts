/** The REST sidecar's public surface (docs/architecture.md §2). */
export { createRestApp } from './app.js';
export { resolveRestConfig, DEFAULT_REST_CONFIG } from './config.js';
export type { RestConfig, RestConfigInput, RestAuthConfig, RestDeps, HypervisorResolver } from './config.js';
export { signToken, verifyToken } from './jwt.js';
export { deriveSigningKey } from './jwt.js';
export { isAuthenticated, readAdminToken, type AdminTokenSource } from './plugins/auth.js';
