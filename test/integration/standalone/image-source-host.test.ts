/**
 * POST /images from an http(s) URL whose host refuses the connection (or does not resolve) is the
 * caller's mistake: 400 naming the host, and nothing written (issue 39: it was a 500 "fetch failed").
 */
import { createServer } from 'node:net';
import type { ZImage } from '../../../src/api/index.js';
import { unreachableSourceMessage } from '../../../src/rest/routes/source-host.js';
import { http, standaloneForSuite } from './helpers.js';

const importBody = (name: string, url: string) => ({ image: { image_name: name, url, image_meta: { os_version: 'rhel8.6' } } });

describe('an image source that cannot be reached', () => {
  const s = standaloneForSuite();

  it('answers 400 naming host and port when the connection is refused, and creates no ZImage', async () => {
    // a port that was free a moment ago: nothing listens there now
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const res = await http(s.app.restUrl, 'POST', '/images', importBody('refused1', `http://127.0.0.1:${port}/rhel.img`));
    expect(res.status).toBe(400);
    expect(res.body.errmsg).toContain(`127.0.0.1:${port} refused the connection; check the image URL`);
    expect((await s.app.store.list<ZImage>('ZImage')).items.map((i) => i.metadata.name)).not.toContain('refused1');
  });

  it('names a host that does not resolve, and leaves other failures to the import', () => {
    expect(unreachableSourceMessage('images.example.invalid', 443, 'ENOTFOUND')).toBe('url: the host images.example.invalid does not resolve; check the image URL');
    expect(unreachableSourceMessage('h', 80, 'ETIMEDOUT')).toBeUndefined();
  });
});
