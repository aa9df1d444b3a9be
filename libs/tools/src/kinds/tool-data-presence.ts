import { Injectable } from '@nestjs/common';

/**
 * Data that some tools read and that a tenant may not have loaded yet (the OPS demo's items, metrics and
 * history, say): registered by the lib that owns the data, so a caller that ran those tools and got nothing
 * can tell "nothing matched" from "nothing was ever loaded" and say how to load it.
 */
export interface ToolDataSource {
  /** The tools that read this data. */
  tools: ReadonlySet<string>;
  hasData(tenantId: string): Promise<boolean>;
  /** A machine-readable warning for answers whose steps found nothing because nothing is loaded. */
  warning: string;
  /** What to tell the user, per language. */
  hint: { ko: string; en: string };
}

/** A step as the presence check reads it: which tool ran and what it returned. */
export interface RanStep {
  tool: string;
  success: boolean;
  data: unknown;
}

function hasRows(data: unknown): boolean {
  if (!data || typeof data !== 'object') return false;
  return Object.values(data).some((value) => Array.isArray(value) && value.length > 0);
}

/** The registration port for tool data sources (filled by the libs that own the data). */
@Injectable()
export class ToolDataPresence {
  private readonly sources: ToolDataSource[] = [];

  register(source: ToolDataSource): void {
    this.sources.push(source);
  }

  /**
   * The data sources that the steps read, found nothing in, and that the tenant has no data in at all
   * (a step that returned rows proves its source is loaded).
   */
  async missing(tenantId: string, steps: RanStep[]): Promise<ToolDataSource[]> {
    const missing: ToolDataSource[] = [];
    for (const source of this.sources) {
      const read = steps.filter((step) => source.tools.has(step.tool));
      if (!read.length || read.some((step) => step.success && hasRows(step.data))) continue;
      if (!(await source.hasData(tenantId))) missing.push(source);
    }
    return missing;
  }
}
