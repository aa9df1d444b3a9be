import { ToolError, ToolErrorCode } from '../core/tool.types';
import { PATH_VALUE_MESSAGES, pathValueIssue } from './url-path-value.util';

/** What `{{...}}` placeholders of an http tool can reach. */
export interface TemplateScope {
  input: Record<string, unknown>;
  context: { user_id: string; tenant_id: string };
  secret?: string;
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const EXACT_PLACEHOLDER = /^\{\{\s*([^{}]*?)\s*\}\}$/;
const INPUT_PATH = /^input(\.[A-Za-z0-9_-]+)*$/;
const CONTEXT_FIELDS = new Set(['context.user_id', 'context.tenant_id']);

export function placeholdersOf(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1]);
}

/** Null when the expression is one the renderer understands, else why not. */
export function placeholderIssue(expression: string): string | null {
  if (expression === 'secret' || CONTEXT_FIELDS.has(expression) || INPUT_PATH.test(expression)) return null;
  return `unknown placeholder {{${expression}}}: use input.<path>, context.user_id, context.tenant_id or secret`;
}

/** Reads a dot path (`data.items.0.id`); own properties only, so `__proto__` and friends resolve to nothing. */
export function readPath(value: unknown, path: string): unknown {
  if (path === '' || path === '$') return value;
  let current: unknown = value;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function resolve(expression: string, scope: TemplateScope): unknown {
  if (expression === 'secret') return scope.secret;
  if (expression === 'context.user_id') return scope.context.user_id;
  if (expression === 'context.tenant_id') return scope.context.tenant_id;
  if (expression === 'input') return scope.input;
  if (expression.startsWith('input.')) return readPath(scope.input, expression.slice('input.'.length));
  throw new ToolError(ToolErrorCode.EXECUTION_FAILED, placeholderIssue(expression) ?? 'bad placeholder');
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return JSON.stringify(value);
}

/** Interpolates a string template; missing values become empty strings. */
export function renderString(
  template: string,
  scope: TemplateScope,
  encode: (text: string) => string = (text) => text,
): string {
  return template.replace(PLACEHOLDER, (_match, expression: string) =>
    encode(asText(resolve(expression, scope))),
  );
}

/** `.` and `..` in any spelling a URL parser decodes (`%2e`), which would climb or collapse path segments. */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;
/** `scheme://host[:port]` at the start of a URL. */
const URL_ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/**
 * Renders a URL template: every value is percent-encoded (so input cannot add path segments, query
 * parameters or change the host), and a placeholder without a value is an input error. A path value
 * is judged in its most decoded spelling (`pathValueIssue`: percent layers, NFKC, `..;`) and refused
 * when it could be a dot segment there; the rendered path is checked again, also between the slashes
 * a value encodes: encoding leaves dots alone, and the URL parser would otherwise resolve `/api/../x`
 * to `/x`.
 */
export function renderUrl(template: string, scope: TemplateScope): string {
  const queryStart = template.search(/[?#]/);
  const rendered = template.replace(PLACEHOLDER, (_match, expression: string, offset: number) => {
    const value = resolve(expression, scope);
    if (value === undefined || value === null || value === '') {
      throw new ToolError(ToolErrorCode.INVALID_INPUT, `The URL needs a value for {{${expression}}}.`, {
        placeholder: expression,
      });
    }
    const text = asText(value);
    const issue = queryStart === -1 || offset < queryStart ? pathValueIssue(text) : null;
    if (issue) {
      throw new ToolError(ToolErrorCode.INVALID_INPUT, PATH_VALUE_MESSAGES[issue], {
        placeholder: expression,
        reason: issue,
      });
    }
    return encodeURIComponent(text);
  });
  // Encoded values hold no `?` or `#`, so the first one belongs to the template and ends the path.
  const path = rendered.replace(URL_ORIGIN, '').split(/[?#]/, 1)[0];
  // Also between encoded slashes: a target that decodes `%2F` (or `%5C`) before resolving dot segments
  // would climb on `a/../..`; a value like `group/project` (GitLab-style ids) stays allowed.
  if (path.split(/\/|%2f|%5c/i).some((segment) => DOT_SEGMENT.test(segment))) {
    throw new ToolError(
      ToolErrorCode.INVALID_INPUT,
      'A URL path value may not be a dot segment (`.` or `..`).',
      { placeholders: placeholdersOf(template) },
    );
  }
  return rendered;
}

/** The value of a string that is exactly one placeholder (its JSON type kept), else the interpolated text. */
export function renderScalar(template: string, scope: TemplateScope): unknown {
  const exact = EXACT_PLACEHOLDER.exec(template);
  return exact ? resolve(exact[1], scope) : renderString(template, scope);
}

/** Renders a JSON body template; object keys whose exact placeholder has no value are left out. */
export function renderJson(template: unknown, scope: TemplateScope): unknown {
  if (typeof template === 'string') return renderScalar(template, scope);
  if (Array.isArray(template)) return template.map((item) => renderJson(item, scope) ?? null);
  if (template && typeof template === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(template)) {
      const rendered = renderJson(value, scope);
      if (rendered !== undefined) out[key] = rendered;
    }
    return out;
  }
  return template;
}

/** Every string found anywhere in a JSON template (for placeholder checks). */
export function templateStrings(template: unknown): string[] {
  if (typeof template === 'string') return [template];
  if (Array.isArray(template)) return template.flatMap(templateStrings);
  if (template && typeof template === 'object') return Object.values(template).flatMap(templateStrings);
  return [];
}
