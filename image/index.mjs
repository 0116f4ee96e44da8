// The last step of image/build.sh: turns umoci's per-architecture tags into a multi-arch image and
// writes the SBOM. In the OCI layout's index.json each architecture's manifest gains its platform, and
// a nested image index (the manifest list a registry serves for the version tag) lists them all,
// tagged VERSION. The SBOM (CycloneDX JSON) is npm's own for /app plus each architecture's Debian
// packages, read from the archive names mmdebstrap extracted (name_version_arch.deb).
//   node image/index.mjs OCI_DIR VERSION WORK_DIR SBOM_OUT ARCH...
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const INDEX_TYPE = 'application/vnd.oci.image.index.v1+json';
const REF = 'org.opencontainers.image.ref.name';
const [oci, version, work, sbomOut, ...archs] = process.argv.slice(2);

function multiArchIndex() {
  const indexPath = join(oci, 'index.json');
  const index = JSON.parse(readFileSync(indexPath, 'utf8'));
  const perArch = index.manifests.filter((m) => archs.includes(m.annotations?.[REF]));
  for (const m of perArch) m.platform = { architecture: m.annotations[REF], os: 'linux' };
  const list = { schemaVersion: 2, mediaType: INDEX_TYPE, manifests: perArch.map(({ annotations: _tag, ...m }) => m) };
  const bytes = Buffer.from(JSON.stringify(list));
  const digest = createHash('sha256').update(bytes).digest('hex');
  writeFileSync(join(oci, 'blobs', 'sha256', digest), bytes);
  index.manifests = [
    ...index.manifests.filter((m) => m.annotations?.[REF] !== version),
    { mediaType: INDEX_TYPE, digest: `sha256:${digest}`, size: bytes.length, annotations: { [REF]: version } },
  ];
  writeFileSync(indexPath, JSON.stringify(index));
  return perArch;
}

function debianComponents(arch) {
  return readFileSync(join(work, `debs-${arch}.txt`), 'utf8').split('\n').filter(Boolean).map((file) => {
    const [name, rawVersion] = file.replace(/\.deb$/, '').split('_');
    const debVersion = decodeURIComponent(rawVersion);
    const purl = `pkg:deb/debian/${name}@${encodeURIComponent(debVersion)}?arch=${arch}`;
    return { type: name === 'nodejs' ? 'platform' : 'library', 'bom-ref': purl, name, version: debVersion, purl };
  });
}

function sbom(manifests) {
  const npm = JSON.parse(readFileSync(join(work, 'npm.cdx.json'), 'utf8'));
  const app = npm.metadata.component;
  return {
    ...npm,
    metadata: {
      ...npm.metadata,
      component: {
        type: 'container', 'bom-ref': `zvm-operator-image@${version}`, name: 'zvm-operator', version,
        properties: manifests.map((m) => ({ name: `oci:manifest:${m.platform.architecture}`, value: m.digest })),
      },
    },
    components: [app, ...npm.components, ...archs.flatMap(debianComponents)],
  };
}

writeFileSync(sbomOut, `${JSON.stringify(sbom(multiArchIndex()), null, 2)}\n`);
