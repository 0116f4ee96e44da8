import type { HandlerSpec } from '../context.js';
import { definitionHandlers } from './definition.js';
import { diskHandlers } from './disks.js';
import { fcpHandlers } from './fcp.js';
import { imageDmHandlers } from './image-dm.js';
import { nicHandlers } from './nics.js';
import { powerHandlers } from './power.js';
import { relocateHandlers } from './relocate.js';
import { hostQueryHandlers } from './host-queries.js';
import { systemHandlers } from './system.js';
import { vswitchHandlers } from './vswitch.js';

/** Every SMAPI function the simulator answers; anything else is 900/12. */
export const handlers: ReadonlyMap<string, HandlerSpec> = new Map(
  Object.entries({
    ...imageDmHandlers,
    ...definitionHandlers,
    ...powerHandlers,
    ...diskHandlers,
    ...nicHandlers,
    ...vswitchHandlers,
    ...systemHandlers,
    ...hostQueryHandlers,
    ...relocateHandlers,
    ...fcpHandlers,
  }),
);
