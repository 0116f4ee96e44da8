/** Bytes of image data the operator moved to and from a host's management guest, per z/VM host. */
import { Counter, type Registry } from 'prom-client';
import { registerOnce } from '../../metrics.js';

/** import: into the image repository; export: out of it; deploy: a deploy's transport files. */
export type TransferDirection = 'import' | 'export' | 'deploy';

/** Counts bytes as they flow (so a long transfer shows while it runs). */
export type TransferCounter = (operation: TransferDirection, bytes: number) => void;

export function registerTransferMetrics(registry: Registry): Counter<'host' | 'operation'> {
  return registerOnce(registry, 'zvm_image_transfer_bytes_total', (registers) => new Counter({
    name: 'zvm_image_transfer_bytes_total', help: 'Image bytes copied to or from a z/VM host\'s management guest, by host and operation (import, export, deploy)',
    labelNames: ['host', 'operation'] as const, registers,
  }));
}

export function transferCounter(metrics?: { registry: Registry; host: string }): TransferCounter | undefined {
  if (!metrics) return undefined;
  const counter = registerTransferMetrics(metrics.registry);
  return (operation, bytes) => counter.inc({ host: metrics.host, operation }, bytes);
}
