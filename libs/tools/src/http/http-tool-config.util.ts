import type { HttpToolConfig, ToolConfigIssue } from '@app/asset-registry';
import { SECRET_REFERENCE } from '@app/platform';
import { placeholderIssue, placeholdersOf, templateStrings } from './http-template.util';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** `secret:<NAME>` (the calling tenant's store) or `env:OPS_SECRET_<NAME>` (only when granted to the tenant). */
export const SECRET_REF = SECRET_REFERENCE;
export const HTTP_TOOL_DEFAULT_TIMEOUT_MS = 10_000;
export const HTTP_TOOL_MAX_TIMEOUT_MS = 120_000;
export const HTTP_TOOL_DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
export const HTTP_TOOL_MAX_RESPONSE_BYTES = 20 * 1024 * 1024;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FORBIDDEN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

function isStringMap(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string')
  );
}

function checkPlaceholders(
  path: string,
  templates: string[],
  hasSecret: boolean,
  issues: ToolConfigIssue[],
): void {
  for (const template of templates) {
    for (const expression of placeholdersOf(template)) {
      const issue = placeholderIssue(expression);
      if (issue) issues.push({ path, message: issue });
      else if (expression === 'secret' && !hasSecret) {
        issues.push({ path, message: '{{secret}} is used but the tool has no secret_ref' });
      }
    }
  }
}

function checkLimit(name: string, value: unknown, max: number, issues: ToolConfigIssue[]): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    issues.push({ path: `/${name}`, message: `must be an integer from 1 to ${max}` });
  }
}

/**
 * Everything wrong with an http tool config, checked when the tool is built (publish time), so a
 * published tool fails only for reasons outside the config. Input may not steer the scheme, host or
 * port: placeholders are refused before the path of the URL.
 */
export function httpToolConfigIssues(config: unknown): ToolConfigIssue[] {
  const issues: ToolConfigIssue[] = [];
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    return [{ path: '/', message: 'tool_config must be an object' }];
  }
  const c = config as Partial<HttpToolConfig> & Record<string, unknown>;
  const hasSecret = c.secret_ref !== undefined && c.secret_ref !== null;
  if (hasSecret && (typeof c.secret_ref !== 'string' || !SECRET_REF.test(c.secret_ref))) {
    issues.push({
      path: '/secret_ref',
      message: 'must look like secret:<NAME> or env:OPS_SECRET_<NAME> (A-Z, 0-9, _)',
    });
  }
  if (!HTTP_METHODS.includes(c.method as (typeof HTTP_METHODS)[number])) {
    issues.push({ path: '/method', message: `must be one of ${HTTP_METHODS.join(', ')}` });
  }
  if (typeof c.url !== 'string' || !c.url) {
    issues.push({ path: '/url', message: 'must be a URL template string' });
  } else {
    const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(c.url)?.[0];
    if (!origin) issues.push({ path: '/url', message: 'must start with http:// or https:// and a host' });
    else if (placeholdersOf(origin).length) {
      issues.push({ path: '/url', message: 'placeholders are not allowed in the scheme, host or port' });
    } else {
      try {
        const parsed = new URL(c.url.replace(/\{\{[^{}]*\}\}/g, 'x'));
        if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
          issues.push({ path: '/url', message: 'only http and https URLs are allowed' });
        }
        if (parsed.username || parsed.password) {
          issues.push({ path: '/url', message: 'credentials in the URL are not allowed; use a header' });
        }
      } catch {
        issues.push({ path: '/url', message: 'is not a valid URL' });
      }
    }
    checkPlaceholders('/url', [c.url], hasSecret, issues);
  }
  for (const key of ['headers', 'query'] as const) {
    if (c[key] === undefined || c[key] === null) continue;
    if (!isStringMap(c[key])) {
      issues.push({ path: `/${key}`, message: 'must map names to string templates' });
      continue;
    }
    checkPlaceholders(`/${key}`, Object.values(c[key]), hasSecret, issues);
  }
  for (const name of Object.keys(isStringMap(c.headers) ? c.headers : {})) {
    if (!HEADER_NAME.test(name) || FORBIDDEN_HEADERS.has(name.toLowerCase())) {
      issues.push({ path: `/headers/${name}`, message: 'is not a header a tool may set' });
    }
  }
  if (c.body !== undefined && c.body !== null) {
    if (c.method === 'GET') issues.push({ path: '/body', message: 'a GET request has no body' });
    checkPlaceholders('/body', templateStrings(c.body), hasSecret, issues);
  }
  if (c.response_mapping !== undefined && c.response_mapping !== null && !isStringMap(c.response_mapping)) {
    issues.push({ path: '/response_mapping', message: 'must map output fields to dot paths' });
  }
  checkLimit('timeout_ms', c.timeout_ms, HTTP_TOOL_MAX_TIMEOUT_MS, issues);
  checkLimit('max_response_bytes', c.max_response_bytes, HTTP_TOOL_MAX_RESPONSE_BYTES, issues);
  return issues;
}
