/**
 * Answers and tool output as a person reads them: the text keeps its paragraphs and line breaks, a
 * markdown table or a JSON value pasted into the text (a model quoting a tool) is shown as a table or a
 * list of fields instead of raw JSON, and a tool's rows are a table.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Segment =
  { kind: 'text'; text: string } | { kind: 'json'; value: Json } | { kind: 'table'; rows: string[][] };

const isRecord = (value: unknown): value is Record<string, Json> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The end (exclusive) of the JSON object or array that opens at `start`, or -1 when it does not close. */
function closingIndex(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') stack.push(c === '{' ? '}' : ']');
    else if (c === '}' || c === ']') {
      if (stack.pop() !== c) return -1;
      if (!stack.length) return i + 1;
    }
  }
  return -1;
}

/** JSON objects and arrays inside a text (with their ```json fences dropped), the rest as text. */
function splitJson(text: string): Segment[] {
  const segments: Segment[] = [];
  let rest = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '{' && text[i] !== '[') continue;
    const end = closingIndex(text, i);
    if (end < 0) continue;
    let value: Json;
    try {
      value = JSON.parse(text.slice(i, end)) as Json;
    } catch {
      continue;
    }
    // "[1]" or "{}" in prose is not a pasted value.
    if (
      Array.isArray(value) ? !value.some((v) => typeof v === 'object' && v) : !Object.keys(value ?? {}).length
    )
      continue;
    let before = text.slice(rest, i);
    let after = end;
    const fence = /```(?:json)?\s*$/.exec(before);
    const close = /^\s*```/.exec(text.slice(end));
    if (fence && close) {
      before = before.slice(0, fence.index);
      after = end + close[0].length;
    }
    if (before) segments.push({ kind: 'text', text: before });
    segments.push({ kind: 'json', value });
    rest = after;
    i = after - 1;
  }
  if (rest < text.length) segments.push({ kind: 'text', text: text.slice(rest) });
  return segments;
}

const TABLE_LINE = /^\s*\|.*\|\s*$/;
const SEPARATOR = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;
const cells = (line: string) =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim());

/** Markdown tables (a header, a `---` line, rows) inside a text segment. */
function splitTables(text: string): Segment[] {
  const lines = text.split('\n');
  const segments: Segment[] = [];
  let buffer: string[] = [];
  const flush = () => {
    if (buffer.length) segments.push({ kind: 'text', text: buffer.join('\n') });
    buffer = [];
  };
  for (let i = 0; i < lines.length; i++) {
    if (TABLE_LINE.test(lines[i]) && SEPARATOR.test(lines[i + 1] ?? '')) {
      const rows = [cells(lines[i])];
      let j = i + 2;
      for (; j < lines.length && TABLE_LINE.test(lines[j]); j++) rows.push(cells(lines[j]));
      flush();
      segments.push({ kind: 'table', rows });
      i = j - 1;
    } else buffer.push(lines[i]);
  }
  flush();
  return segments;
}

/** The parts of an answer text: text, pasted JSON values and markdown tables. */
export function answerSegments(text: string): Segment[] {
  return splitJson(text).flatMap((s) => (s.kind === 'text' ? splitTables(s.text) : [s]));
}

const scalar = (value: Json): string =>
  value === null ? '—' : typeof value === 'object' ? JSON.stringify(value) : String(value);

/** Rows (records) as a table whose columns are their fields, in first-seen order. */
function RecordsTable({ rows, label }: { rows: Record<string, Json>[]; label?: string }) {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  return (
    <div class="scroll">
      <table aria-label={label}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c}>{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i}>
              {columns.map((c) => (
                <td key={c}>{c in row ? <Value value={row[c]} /> : ''}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Any JSON value for reading: records are a table, an object is a list of fields, scalars are text. */
export function Value({ value, label }: { value: unknown; label?: string }) {
  const v = value as Json;
  if (Array.isArray(v)) {
    if (!v.length) return <span class="muted">none</span>;
    if (v.every(isRecord)) return <RecordsTable rows={v} label={label} />;
    if (v.every((x) => typeof x !== 'object' || x === null)) return <span>{v.map(scalar).join(', ')}</span>;
    return (
      <ul class="fields">
        {v.map((x, i) => (
          <li key={i}>
            <Value value={x} />
          </li>
        ))}
      </ul>
    );
  }
  if (isRecord(v)) {
    const entries = Object.entries(v);
    if (!entries.length) return <span class="muted">none</span>;
    return (
      <dl class="fields" aria-label={label}>
        {entries.map(([key, field]) => (
          <div key={key}>
            <dt>{key}</dt>
            <dd>
              <Value value={field} label={key} />
            </dd>
          </div>
        ))}
      </dl>
    );
  }
  return <span>{v === undefined ? '—' : scalar(v)}</span>;
}

/** An answer text with its line breaks, tables and pasted JSON rendered for reading. */
export function AnswerText({ text, testId }: { text: string; testId?: string }) {
  return (
    <div class="answer" data-testid={testId}>
      {answerSegments(text).map((segment, i) =>
        segment.kind === 'text' ? (
          <span key={i} class="answer-text">
            {segment.text}
          </span>
        ) : segment.kind === 'table' ? (
          <div key={i} class="scroll">
            <table>
              <thead>
                <tr>
                  {segment.rows[0].map((c, j) => (
                    <th key={j}>{c}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {segment.rows.slice(1).map((row, r) => (
                  <tr key={r}>
                    {row.map((c, j) => (
                      <td key={j}>{c}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <Value key={i} value={segment.value} />
        ),
      )}
    </div>
  );
}
