import type { Resource } from '../api/index.js';

export type EventType = 'Normal' | 'Warning';

/** Records Kubernetes Events on objects; adapters: kube (core/v1 Events), embedded (log + memory). */
export interface EventRecorder {
  event(obj: Resource, type: EventType, reason: string, message: string): void;
}
