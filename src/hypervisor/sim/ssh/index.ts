/** The simulator's management-guest endpoint over SSH (vmcp, zthin image tools, SFTP). */
export { startSimSshServer, type SimSshOptions, type SimSshServer } from './server.js';
