/** The ZHost a resource belongs to when its spec names none (the CRDs default spec.host to it too). */
export const DEFAULT_HOST = 'default';

/** The name of the ZHost a resource (ZGuest, ZImage, ZVolume, ZVswitch, ZFcpTemplate) works on. */
export function hostOf(resource: { spec?: unknown }): string {
  return (resource.spec as { host?: string } | undefined)?.host ?? DEFAULT_HOST;
}
