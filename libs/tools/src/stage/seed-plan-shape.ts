import { Injectable } from '@nestjs/common';
import type { SeedPlanPart } from './seed-plan.util';

/**
 * The registration port for the seed plan shape (`POST /ops/stage/execute` with `plan`): which tool runs
 * each part of the plan and where its result goes. The parts name tools, so the lib that owns those tools
 * registers them on init; without a registration a plan request is refused.
 */
@Injectable()
export class SeedPlanShape {
  private registered: readonly SeedPlanPart[] | null = null;

  register(parts: readonly SeedPlanPart[]): void {
    // A second, different shape means two libs claim the plan, or a module loaded twice.
    if (this.registered && this.registered !== parts)
      throw new Error('A seed plan shape is already registered.');
    this.registered = parts;
  }

  /** The registered parts, or null when no loaded lib registered a shape. */
  parts(): readonly SeedPlanPart[] | null {
    return this.registered;
  }
}
