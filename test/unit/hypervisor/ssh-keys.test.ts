import ssh2 from 'ssh2';
import { generateEd25519KeyPair } from '../../../src/hypervisor/sim/ssh/ssh-keys.js';

describe('ed25519 key pairs for the SSH endpoints', () => {
  it('hands out only keys that ssh2 parses back (its generator alone fails about 1 in 200)', () => {
    for (let i = 0; i < 400; i++) {
      const pair = generateEd25519KeyPair();
      expect(ssh2.utils.parseKey(pair.private)).not.toBeInstanceOf(Error);
      expect(pair.public).toMatch(/^ssh-ed25519 /);
    }
  });
});
