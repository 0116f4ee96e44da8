import ssh2 from 'ssh2';
import { ZvmError } from '../../../errors.js';

const ATTEMPTS = 20;

/**
 * An ed25519 key pair in OpenSSH format that ssh2 can read back. About one in two hundred keys
 * ssh2's own generator makes is refused by its parser ("Malformed OpenSSH private key"), so a pair
 * is only handed out once the private key parses.
 */
export function generateEd25519KeyPair(): { private: string; public: string } {
  for (let i = 0; i < ATTEMPTS; i++) {
    const pair = ssh2.utils.generateKeyPairSync('ed25519');
    if (!(ssh2.utils.parseKey(pair.private) instanceof Error)) return pair;
  }
  throw new ZvmError('INTERNAL', `ssh2 could not parse any of ${ATTEMPTS} generated ed25519 keys`);
}
