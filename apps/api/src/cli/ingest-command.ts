import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { DocumentIngestionService } from '@app/documents';
import { cliTenant, openCliApp } from './cli-app';
import { ParsedArgs, serverUrl, stringFlag } from './cli-args';
import { fetchJson } from './cli-http';
import { resolveApiKey } from './key-commands';

const EXTENSIONS = new Set([
  '.txt',
  '.text',
  '.log',
  '.md',
  '.markdown',
  '.html',
  '.htm',
  '.csv',
  '.pdf',
  '.docx',
  '.pptx',
  '.xlsx',
]);

function collectFiles(target: string): string[] {
  const stat = statSync(target);
  if (stat.isFile()) return [target];
  return readdirSync(target, { withFileTypes: true })
    .filter((entry) => !entry.name.startsWith('.'))
    .flatMap((entry) => {
      const full = path.join(target, entry.name);
      if (entry.isDirectory()) return collectFiles(full);
      return EXTENSIONS.has(path.extname(entry.name).toLowerCase()) ? [full] : [];
    })
    .sort();
}

function progressBar(done: number, total: number, label: string): void {
  const width = 30;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${label}`.slice(0, 110);
  process.stderr.write(process.stderr.isTTY ? `\r${line.padEnd(110)}` : `${line}\n`);
}

interface DocumentPayload {
  id: string;
  status: string;
  error_details?: { message: string } | null;
  queued?: boolean;
  deduplicated?: boolean;
  items?: DocumentPayload[];
  error?: string;
  message?: string;
}

/** A file whose stored document already has this exact content: nothing was queued. */
const UNCHANGED = 'unchanged';

interface Outcome {
  file: string;
  id?: string;
  status: string;
  error?: string;
}

/** Uploads through a running server's API, then follows ingestion until every document settles. */
async function ingestOverHttp(
  url: string,
  apiKey: string,
  root: string,
  files: string[],
): Promise<Outcome[]> {
  const call = (method: string, route: string, body?: FormData) =>
    fetchJson<DocumentPayload>(method, new URL(route, url), {
      headers: { authorization: `Bearer ${apiKey}` },
      body,
    });
  const outcomes: Outcome[] = [];
  for (const [index, file] of files.entries()) {
    const name = path.relative(root, file) || path.basename(file);
    progressBar(index, files.length, `uploading ${name}`);
    const form = new FormData();
    form.append('file', new Blob([readFileSync(file)]), name);
    form.append('filename', name);
    try {
      const existing = await call('GET', `/api/documents?filename=${encodeURIComponent(name)}&limit=1`);
      const current = existing.items?.[0];
      const doc = current
        ? await call('PUT', `/api/documents/${current.id}`, form)
        : await call('POST', '/api/documents', form);
      const unchanged = doc.queued === false || doc.deduplicated === true;
      outcomes.push({ file: name, id: doc.id, status: unchanged ? UNCHANGED : doc.status });
    } catch (error) {
      outcomes.push({ file: name, status: 'rejected', error: (error as Error).message });
    }
  }
  for (;;) {
    const pending = outcomes.filter((o) => o.id && !['done', 'failed', UNCHANGED].includes(o.status));
    for (const outcome of pending) {
      const doc = await call('GET', `/api/documents/${outcome.id}`);
      outcome.status = doc.status;
      if (doc.status === 'failed') outcome.error = doc.error_details?.message;
    }
    const settled = outcomes.filter((o) =>
      ['done', 'failed', 'rejected', UNCHANGED].includes(o.status),
    ).length;
    progressBar(settled, outcomes.length, 'ingesting');
    if (settled === outcomes.length) return outcomes;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Opens a stopped server's data directory (or DATABASE_URL) and processes the queue in this process. */
async function ingestDirectly(args: ParsedArgs, root: string, files: string[]): Promise<Outcome[]> {
  const app = await openCliApp(args);
  try {
    const tenantId = (await cliTenant(app, args)).id;
    const ingestion = app.get(DocumentIngestionService);
    const outcomes: Outcome[] = [];
    for (const [index, file] of files.entries()) {
      const name = path.relative(root, file) || path.basename(file);
      progressBar(index, files.length, `ingesting ${name}`);
      try {
        const { document, queued } = await ingestion.upsertByFilename(tenantId, {
          filename: name,
          content: readFileSync(file),
          userId: 'cli',
        });
        if (!queued) {
          outcomes.push({ file: name, id: document.id, status: UNCHANGED });
          continue;
        }
        await ingestion.processQueue();
        const view = await ingestion.get(tenantId, document.id);
        outcomes.push({ file: name, id: view.id, status: view.status, error: view.error_details?.message });
      } catch (error) {
        outcomes.push({ file: name, status: 'rejected', error: (error as Error).message });
      }
    }
    progressBar(files.length, files.length, 'done');
    return outcomes;
  } finally {
    await app.close();
  }
}

const SETTLED = ['done', 'failed', 'rejected'];

/**
 * `--bulk`: queues every file, sends the tenant's queued jobs down the bulk path (native: vectors by
 * binary COPY, one HNSW build after the batch; embedded: the normal path) and drains the queue in
 * this process until every document settles. A run killed midway loses nothing: run it again and
 * it resumes the queued jobs (a killed run's leases expire after DOCUMENTS_JOB_LEASE_SECONDS).
 * Each round of at most the tenant's queue caps is indexed once.
 */
async function ingestBulk(args: ParsedArgs, root: string, files: string[]): Promise<Outcome[]> {
  const app = await openCliApp(args);
  try {
    const tenantId = (await cliTenant(app, args)).id;
    const ingestion = app.get(DocumentIngestionService);
    const outcomes: Outcome[] = [];
    const load = async () => {
      await ingestion.markQueuedBulk(tenantId);
      for (;;) {
        await ingestion.processQueue();
        await ingestion.completeBulkLoads();
        for (const outcome of outcomes.filter((o) => o.id && !SETTLED.includes(o.status))) {
          const view = await ingestion.get(tenantId, outcome.id!);
          outcome.status = view.status;
          outcome.error = view.error_details?.message;
        }
        const settled = outcomes.filter((o) => SETTLED.includes(o.status)).length;
        progressBar(settled, files.length, 'bulk load');
        if (settled === outcomes.length) return;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    };
    for (const [index, file] of files.entries()) {
      const name = path.relative(root, file) || path.basename(file);
      progressBar(index, files.length, `queueing ${name}`);
      const upsert = () =>
        ingestion.upsertByFilename(tenantId, { filename: name, content: readFileSync(file), userId: 'cli' });
      try {
        const { document } = await upsert().catch(async (error: { code?: string }) => {
          if (error.code !== 'DOCUMENTS_QUEUE_FULL') throw error;
          await load();
          return upsert();
        });
        outcomes.push({ file: name, id: document.id, status: document.status });
      } catch (error) {
        outcomes.push({ file: name, status: 'rejected', error: (error as Error).message });
      }
    }
    await load();
    return outcomes;
  } finally {
    await app.close();
  }
}

export async function runIngestCommand(args: ParsedArgs): Promise<void> {
  const bulk = args.flags.bulk !== undefined;
  // `ingest --bulk <folder>`: the parser reads the folder as the flag's value.
  const target = args.positional[1] ?? (typeof args.flags.bulk === 'string' ? args.flags.bulk : undefined);
  if (!target)
    throw new Error(
      'usage: ingest <file-or-folder> [--bulk] [--url URL (or OPS_URL) | --data-dir DIR] [--tenant T]',
    );
  const dataDir = stringFlag(args, 'data-dir');
  if (dataDir) process.env.DATA_DIR = dataDir;
  const root = statSync(target).isDirectory() ? path.resolve(target) : path.dirname(path.resolve(target));
  const files = collectFiles(path.resolve(target));
  if (files.length === 0)
    throw new Error(`no supported documents under ${target} (${[...EXTENSIONS].join(' ')})`);
  // --bulk works on the database: an exported OPS_URL does not apply to it, an explicit --url is a mistake.
  if (bulk && stringFlag(args, 'url'))
    throw new Error('ingest --bulk runs on the database (--data-dir or DATABASE_URL), not --url');
  const url = bulk ? undefined : serverUrl(args);
  const outcomes = bulk
    ? await ingestBulk(args, root, files)
    : url
      ? await ingestOverHttp(url, resolveApiKey(args), root, files)
      : await ingestDirectly(args, root, files);
  process.stderr.write('\n');
  for (const o of outcomes)
    process.stdout.write(`${o.status.padEnd(8)} ${o.file}${o.error ? `  (${o.error})` : ''}\n`);
  const failed = outcomes.filter((o) => o.status !== 'done' && o.status !== UNCHANGED).length;
  const unchanged = outcomes.filter((o) => o.status === UNCHANGED).length;
  process.stdout.write(
    `${outcomes.length - failed - unchanged} of ${outcomes.length} documents ingested` +
      (unchanged ? `, ${unchanged} unchanged (same content as stored)` : '') +
      '\n',
  );
  if (failed > 0) process.exitCode = 1;
}
