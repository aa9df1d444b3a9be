import { Injectable } from '@nestjs/common';
import { ToolAssetDryRunner } from '../asset-contents';

/**
 * Where the library that builds tools plugs in its dry runner. That library sits above this one (it
 * imports the registry), so the registry cannot import it or inject its runner: the tools module
 * injects this port instead and registers its runner on init. Until one is registered, publishing a
 * tool skips the build check and the dry run.
 */
@Injectable()
export class ToolDryRunnerPort {
  private registered: ToolAssetDryRunner | undefined;

  /** Called once at module init by the module that implements the runner. */
  register(runner: ToolAssetDryRunner): void {
    // Two runners mean two instances of the implementing module: a wiring error worth failing boot.
    if (this.registered && this.registered !== runner)
      throw new Error('A tool asset dry runner is already registered.');
    this.registered = runner;
  }

  /** The registered runner, if any. */
  get runner(): ToolAssetDryRunner | undefined {
    return this.registered;
  }
}
