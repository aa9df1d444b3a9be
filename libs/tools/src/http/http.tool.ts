import type { HttpToolConfig } from '@app/asset-registry';
import { AppException } from '@app/platform';
import { Tool, ToolContext, ToolDefinition, ToolError, ToolErrorCode, ToolOutput } from '../core/tool.types';
import { HTTP_TOOL_DEFAULT_MAX_RESPONSE_BYTES, HTTP_TOOL_DEFAULT_TIMEOUT_MS } from './http-tool-config.util';
import {
  placeholdersOf,
  readPath,
  renderJson,
  renderScalar,
  renderString,
  renderUrl,
  TemplateScope,
} from './http-template.util';
import { OutboundHttpClient, OutboundResponse } from '../outbound/outbound-http.client';
import { redactSecret } from '../secrets/secret-redaction.util';

/** Resolves a tool's `secret_ref` in the calling tenant's namespace (TenantSecretsService). */
export type SecretResolver = (tenantId: string, ref: string) => Promise<string>;

export enum HttpToolErrorCode {
  SECRET_MISSING = 'SECRET_MISSING',
  HTTP_STATUS = 'HTTP_STATUS',
  INVALID_RESPONSE = 'INVALID_RESPONSE',
}

const ERROR_BODY_EXCERPT = 500;

function hasJsonType(response: OutboundResponse): boolean {
  const type = String(response.headers['content-type'] ?? '').toLowerCase();
  return /^application\/([\w.+-]+\+)?json\b/.test(type) || type.startsWith('text/json');
}

/** A tool that calls one HTTP endpoint, described by a published `http` tool asset. */
export class HttpTool implements Tool {
  constructor(
    readonly definition: ToolDefinition,
    private readonly config: HttpToolConfig,
    private readonly client: OutboundHttpClient,
    private readonly secrets: SecretResolver,
  ) {}

  async execute(context: ToolContext, input: Record<string, unknown>): Promise<ToolOutput> {
    const secret = await this.resolveSecret(context.tenantId);
    const scope: TemplateScope = {
      input,
      context: { user_id: context.userId, tenant_id: context.tenantId },
      secret,
    };
    const url = new URL(renderUrl(this.config.url, scope));
    for (const [name, template] of Object.entries(this.config.query ?? {})) {
      const value = renderScalar(template, scope);
      if (value === undefined || value === null) continue;
      for (const item of Array.isArray(value) ? value : [value]) {
        url.searchParams.append(name, typeof item === 'object' ? JSON.stringify(item) : String(item));
      }
    }
    const headers: Record<string, string> = {};
    const credentialHeaders: string[] = [];
    for (const [name, template] of Object.entries(this.config.headers ?? {})) {
      const value = renderString(template, scope);
      if (/[\r\n\0]/.test(value)) {
        throw new ToolError(ToolErrorCode.INVALID_INPUT, `Header ${name} would contain a line break.`);
      }
      if (value !== '') headers[name] = value;
      if (placeholdersOf(template).includes('secret')) credentialHeaders.push(name);
    }
    let body: string | undefined;
    if (this.config.body !== undefined && this.config.body !== null) {
      const rendered = renderJson(this.config.body, scope);
      const hasType = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
      if (typeof rendered === 'string') {
        body = rendered;
        if (!hasType) headers['content-type'] = 'text/plain; charset=utf-8';
      } else {
        body = JSON.stringify(rendered ?? null);
        if (!hasType) headers['content-type'] = 'application/json';
      }
    }
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'accept')) {
      headers.accept = 'application/json, text/plain;q=0.9, */*;q=0.5';
    }

    const remaining = context.deadline - Date.now();
    const timeoutMs = Math.max(
      1,
      Math.min(this.config.timeout_ms ?? HTTP_TOOL_DEFAULT_TIMEOUT_MS, remaining),
    );
    try {
      const response = await this.client.request({
        method: this.config.method,
        url: url.toString(),
        headers,
        body,
        timeoutMs,
        maxResponseBytes: this.config.max_response_bytes ?? HTTP_TOOL_DEFAULT_MAX_RESPONSE_BYTES,
        signal: context.signal,
        credentialHeaders,
      });
      return redactSecret(this.toOutput(response), secret);
    } catch (error) {
      if (error instanceof ToolError && secret) {
        throw new ToolError(
          error.code,
          redactSecret(error.message, secret),
          redactSecret(error.details, secret),
        );
      }
      throw error;
    }
  }

  /** The secret of the calling tenant's namespace; a reference it cannot resolve fails the call, never the value. */
  private async resolveSecret(tenantId: string): Promise<string | undefined> {
    const ref = this.config.secret_ref;
    if (!ref) return undefined;
    try {
      return await this.secrets(tenantId, ref);
    } catch (error) {
      if (!(error instanceof AppException)) throw error;
      throw new ToolError(
        HttpToolErrorCode.SECRET_MISSING,
        `The secret ${ref} cannot be used: ${error.message}`,
        {
          secret_ref: ref,
          reason: error.code,
        },
      );
    }
  }

  private toOutput(response: OutboundResponse): ToolOutput {
    const text = response.body.toString('utf8');
    const metadata = {
      http_status: response.status,
      url: response.url,
      redirects: response.redirects,
      response_bytes: response.body.length,
    };
    if (response.status < 200 || response.status > 299) {
      throw new ToolError(HttpToolErrorCode.HTTP_STATUS, `The endpoint answered HTTP ${response.status}.`, {
        status: response.status,
        body: text.slice(0, ERROR_BODY_EXCERPT),
      });
    }
    let payload: unknown = text;
    if (text === '') payload = null;
    else if (hasJsonType(response)) {
      try {
        payload = JSON.parse(text);
      } catch {
        throw new ToolError(HttpToolErrorCode.INVALID_RESPONSE, 'The endpoint sent invalid JSON.', {
          status: response.status,
        });
      }
    }
    const mapping = this.config.response_mapping;
    if (!mapping || Object.keys(mapping).length === 0) return { data: payload, metadata };
    if (typeof payload !== 'object' || payload === null) {
      throw new ToolError(HttpToolErrorCode.INVALID_RESPONSE, 'response_mapping needs a JSON response.', {
        status: response.status,
        content_type: response.headers['content-type'] ?? null,
      });
    }
    const data: Record<string, unknown> = {};
    const warnings: string[] = [];
    for (const [field, path] of Object.entries(mapping)) {
      const value = readPath(payload, path);
      if (value === undefined) warnings.push(`response has no value at "${path}" for ${field}`);
      data[field] = value ?? null;
    }
    return { data, warnings, metadata };
  }
}
