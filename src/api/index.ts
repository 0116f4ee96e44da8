export * from './common.js';
export * from './zguest.js';
export * from './zhost.js';
export * from './zvswitch.js';
export * from './zfcp-template.js';
export * from './zvolume.js';
export * from './zguest-action.js';
export * from './kinds.js';
export { validateResource } from './validators.js';
