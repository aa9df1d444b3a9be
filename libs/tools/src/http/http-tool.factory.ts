import { Injectable } from '@nestjs/common';
import type { HttpToolConfig, ToolAssetSpec } from '@app/asset-registry';
import { TenantSecretsService } from '@app/platform';
import { SchemaValidator } from '../core/schema-validator';
import type { Tool } from '../core/tool.types';
import { DynamicToolFactory, DynamicToolMeta } from '../kinds/dynamic-tool.factory';
import {
  HTTP_TOOL_DEFAULT_TIMEOUT_MS,
  HTTP_TOOL_MAX_TIMEOUT_MS,
  httpToolConfigIssues,
} from './http-tool-config.util';
import { DynamicToolException } from '../kinds/dynamic-tool.exception';
import { HttpTool } from './http.tool';
import { OutboundHttpClient } from '../outbound/outbound-http.client';

const TOOL_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
/** Headroom over the HTTP timeout for building the request and mapping the response. */
const TOOL_TIMEOUT_MARGIN_MS = 1000;

/** Builds `http` dynamic tools from tool asset specs (the integrator calls it for published assets). */
@Injectable()
export class HttpToolFactory implements DynamicToolFactory {
  private readonly validator = new SchemaValidator();

  constructor(
    private readonly client: OutboundHttpClient,
    private readonly secrets: TenantSecretsService,
  ) {}

  create(spec: ToolAssetSpec, meta: DynamicToolMeta = {}): Tool {
    const issues =
      spec.kind === 'http'
        ? httpToolConfigIssues(spec.tool_config).map((i) => ({
            ...i,
            path: `/tool_config${i.path === '/' ? '' : i.path}`,
          }))
        : [];
    if (spec.kind !== 'http') issues.push({ path: '/tool_type', message: 'must be http' });
    if (!TOOL_NAME.test(spec.name ?? '') || spec.name.includes('__')) {
      issues.push({
        path: '/name',
        message: 'must be 1-64 letters, digits, _ or -, start with a letter, without "__"',
      });
    }
    issues.push(
      ...this.validator
        .schemaIssues(spec.tool_input_schema)
        .map((i) => ({ ...i, path: `/tool_input_schema${i.path}` })),
    );
    if (spec.tool_output_schema) {
      issues.push(
        ...this.validator
          .schemaIssues(spec.tool_output_schema)
          .map((i) => ({ ...i, path: `/tool_output_schema${i.path}` })),
      );
    }
    if (issues.length) throw DynamicToolException.invalidConfig(spec.name ?? '(unnamed)', issues);

    const config = spec.tool_config as HttpToolConfig;
    const httpTimeout = config.timeout_ms ?? HTTP_TOOL_DEFAULT_TIMEOUT_MS;
    return new HttpTool(
      {
        name: spec.name,
        description: spec.description,
        kind: 'http',
        input_schema: spec.tool_input_schema,
        output_schema: spec.tool_output_schema ?? null,
        has_side_effects: spec.has_side_effects ?? config.method !== 'GET',
        timeout_ms: Math.min(
          spec.timeout_ms ?? httpTimeout + TOOL_TIMEOUT_MARGIN_MS,
          HTTP_TOOL_MAX_TIMEOUT_MS,
        ),
        source: 'dynamic',
        source_ref: spec.source_ref ?? null,
        version: meta.version ?? null,
        tags: meta.tags,
      },
      config,
      this.client,
      (tenantId, ref) => this.secrets.resolve(tenantId, ref),
    );
  }
}
