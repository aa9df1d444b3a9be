/**
 * Extracts the shell examples of README.md and the pages under docs/ and checks what their markers
 * promise (see docs/notes/readme.md). A marker is an HTML comment on the line right before a ```bash fence, so
 * GitHub renders nothing of it:
 *
 *   <!-- readme-test: skip needs docker -->
 *   <!-- readme-test: run status=200 json.tenant.id json.role=admin json.results.length>0 -->
 *
 * `run` checks, on the curl calls the block made (recorded by a curl wrapper, in order):
 * - every call answered 2xx, unless `statuses=201,200,*,409` gives one status per call (`*`: any);
 * - `status=N`: the status of the last call;
 * - `json.PATH` (present and not null), `json.PATH=VALUE`, `json.PATH!=VALUE`, `json.PATH>N`,
 *   `json.PATH~TEXT` (string contains) on the body of the last call; `callN.json.PATH...` on call N;
 * - `stdout~TEXT`, `stderr~TEXT`: the block's standard output / error contains TEXT.
 * `server=stopped` runs the block with the server stopped (CLI examples on its embedded data
 * directory; embedded backend only) and starts it again afterwards.
 * Values with spaces are written in double quotes: `json.answer~"two words"`.
 */

export type ReadmeMarker =
  { kind: 'run'; checks: string[] } | { kind: 'skip'; reason: string } | { kind: 'unmarked' };

export interface ReadmeExample {
  /** 1-based line of the opening fence in the markdown file. */
  /** The markdown file, relative to the repository root. */
  file: string;
  line: number;
  code: string;
  marker: ReadmeMarker;
}

export interface RecordedCall {
  status: number;
  body: string;
}

/**
 * The documentation whose shell examples run, in this order, in one shell against one server: the README
 * (quick start and tour) first, then the reference pages, each continuing from the state the pages before
 * it left (each page says what it uses). Every `docs/*.md` page must be listed.
 */
export const DOCUMENTATION_PAGES = [
  'README.md',
  'docs/api-auth.md',
  'docs/api-ops.md',
  'docs/api-tools-mcp.md',
  'docs/api-assets.md',
  'docs/api-documents.md',
  'docs/api-code.md',
  'docs/api-agents.md',
  'docs/api-errors.md',
  'docs/configuration.md',
  'docs/operations.md',
  'docs/console.md',
  'docs/changelog.md',
] as const;

/**
 * API keys (`ops_` + 43 base62 characters) that a block's output shows: the known ones (the admin key),
 * and any string of that shape. An example may keep a key in a variable, never print it.
 */
export function leakedKeys(output: string, known: string[]): string[] {
  const found = new Set<string>();
  for (const key of known) if (key && output.includes(key)) found.add(`${key.slice(0, 12)}…`);
  for (const match of output.matchAll(/\bops_[0-9A-Za-z]{43}\b/g)) found.add(`${match[0].slice(0, 12)}…`);
  return [...found];
}

const FENCE = /^```(\S*)\s*$/;
const MARKER = /^<!--\s*readme-test:\s*(run|skip)\b(.*?)-->\s*$/;

export function extractExamples(markdown: string, file = 'README.md'): ReadmeExample[] {
  const lines = markdown.split('\n');
  const examples: ReadmeExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (!open) continue;
    const end = lines.findIndex((line, j) => j > i && /^```\s*$/.test(line));
    if (end < 0) throw new Error(`${file}:${i + 1}: fence is never closed`);
    if (open[1] === 'bash' || open[1] === 'sh' || open[1] === 'shell') {
      examples.push({
        file,
        line: i + 1,
        code: lines.slice(i + 1, end).join('\n'),
        marker: parseMarker(i > 0 ? lines[i - 1] : ''),
      });
    }
    i = end;
  }
  return examples;
}

function parseMarker(line: string): ReadmeMarker {
  const match = MARKER.exec(line.trim());
  if (!match) return { kind: 'unmarked' };
  const rest = match[2].trim();
  if (match[1] === 'skip') return { kind: 'skip', reason: rest };
  return { kind: 'run', checks: tokenize(rest) };
}

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.matchAll(/(?:[^\s"]+|"[^"]*")+/g)) tokens.push(match[0].replace(/"/g, ''));
  return tokens;
}

/** Every way the calls and output of a block break its marker's promises; empty when it keeps them. */
export function checkExample(checks: string[], calls: RecordedCall[], stdout: string, stderr = ''): string[] {
  const problems: string[] = [];
  const statuses = checks.find((check) => check.startsWith('statuses='));
  if (statuses) {
    const expected = statuses.slice('statuses='.length).split(',');
    if (expected.length !== calls.length)
      problems.push(`expected ${expected.length} curl calls, the block made ${calls.length}`);
    expected.forEach((status, i) => {
      if (status !== '*' && calls[i] && String(calls[i].status) !== status)
        problems.push(`call ${i + 1}: status ${calls[i].status}, expected ${status}`);
    });
  } else {
    calls.forEach((call, i) => {
      const last = i === calls.length - 1;
      const hasStatus = checks.some((check) => check.startsWith('status='));
      if (!(last && hasStatus) && (call.status < 200 || call.status >= 300))
        problems.push(`call ${i + 1}: status ${call.status}, expected 2xx`);
    });
  }
  for (const check of checks) {
    if (check.startsWith('statuses=') || check.startsWith('server=')) continue;
    if (check.startsWith('status=')) {
      const last = calls[calls.length - 1];
      if (!last) problems.push('no curl call was made');
      else if (String(last.status) !== check.slice('status='.length))
        problems.push(`last call: status ${last.status}, expected ${check.slice('status='.length)}`);
      continue;
    }
    if (check.startsWith('stdout~')) {
      if (!stdout.includes(check.slice('stdout~'.length))) problems.push(`stdout lacks "${check.slice(7)}"`);
      continue;
    }
    if (check.startsWith('stderr~')) {
      if (!stderr.includes(check.slice('stderr~'.length))) problems.push(`stderr lacks "${check.slice(7)}"`);
      continue;
    }
    const json = /^(?:call(\d+)\.)?json(\.[^=!<>~]*|\[[^=!<>~]*)?(?:(=|!=|>|~)(.*))?$/.exec(check);
    if (!json) {
      problems.push(`unknown check "${check}"`);
      continue;
    }
    const index = json[1] ? Number(json[1]) - 1 : calls.length - 1;
    const call = calls[index];
    if (!call) {
      problems.push(`${check}: no call ${index + 1}`);
      continue;
    }
    const problem = checkJson(call.body, json[2] ?? '', json[3], json[4]);
    if (problem) problems.push(`${check}: ${problem}`);
  }
  return problems;
}

function checkJson(body: string, path: string, op?: string, expected?: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(sseData(stripHeaders(body)));
  } catch {
    return `the body is not JSON: ${body.slice(0, 200)}`;
  }
  const value = lookup(parsed, path);
  const shown = JSON.stringify(value)?.slice(0, 300) ?? 'undefined';
  if (op === undefined) return value === undefined || value === null ? 'missing' : undefined;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (op === '=') return text === expected ? undefined : `is ${shown}`;
  if (op === '!=') return text !== expected ? undefined : `is ${shown}`;
  if (op === '>') return typeof value === 'number' && value > Number(expected) ? undefined : `is ${shown}`;
  return typeof text === 'string' && text.includes(expected ?? '') ? undefined : `is ${shown}`;
}

/** A `text/event-stream` answer (MCP): the JSON of its last `data:` line. */
function sseData(body: string): string {
  const data = body.split(/\r?\n/).filter((line) => line.startsWith('data: '));
  return data.length > 0 ? data[data.length - 1].slice('data: '.length) : body;
}

/** `curl -D -` writes the response headers before the body. */
function stripHeaders(body: string): string {
  if (!body.startsWith('HTTP/')) return body;
  const split = body.search(/\r?\n\r?\n/);
  return split < 0 ? '' : body.slice(split).trim();
}

function lookup(value: unknown, path: string): unknown {
  const parts = path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter(Boolean);
  let current = value;
  for (const part of parts) {
    if (current === null || current === undefined) return undefined;
    if (part === 'length' && (Array.isArray(current) || typeof current === 'string'))
      current = current.length;
    else current = (current as Record<string, unknown>)[part];
  }
  return current;
}
