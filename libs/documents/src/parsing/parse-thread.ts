import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { DocumentBudgetError, DocumentProcessingError, DocumentsExceptionCode } from '../document-errors';
import type { DocumentFormat } from '../documents.types';
import { parseDocument } from './document-parser';
import type { ParseBudget } from './parse-budget';
import type { ParsedBlock } from './parsed-block';

/** Formats whose parse can take seconds of CPU for one file (unzip, XML, PDF text layout). */
export const THREADED_FORMATS: ReadonlySet<DocumentFormat> = new Set(['docx', 'xlsx', 'pptx', 'pdf']);
/** Smaller files of those formats parse in a few milliseconds: the hand-off to the thread would cost more. */
export const THREADED_MIN_BYTES = 256 * 1024;

interface ParseRequest {
  id: number;
  bytes: Uint8Array;
  format: DocumentFormat;
  budget: ParseBudget;
}

interface SerializedError {
  name: string;
  message: string;
  code?: DocumentsExceptionCode;
  retryable?: boolean;
  limit?: { key: string; limit: number; observed: number };
}

type ParseReply = { id: number; blocks: ParsedBlock[] } | { id: number; error: SerializedError };

interface ThreadData {
  parser: string;
  /** Running from TypeScript sources (tests): compile them with swc as they are required. */
  typescript: { swc: string; options: string } | null;
}

/**
 * The parser thread, as CommonJS source for `new Worker(source, { eval: true })`, so it runs the same
 * from dist/ and from the TypeScript sources under jest (where it compiles the parser's few files
 * with the swc options the build uses).
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.typescript) {
  const fs = require('node:fs');
  const { transformSync } = require(workerData.typescript.swc);
  const options = require(workerData.typescript.options).swcOptions();
  require.extensions['.ts'] = (module, filename) => {
    const { code } = transformSync(fs.readFileSync(filename, 'utf8'), { ...options, filename, swcrc: false, sourceMaps: false });
    module._compile(code, filename);
  };
}
const { parseDocument } = require(workerData.parser);
parentPort.on('message', async ({ id, bytes, format, budget }) => {
  try {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    parentPort.postMessage({ id, blocks: await parseDocument(buffer, format, budget) });
  } catch (error) {
    parentPort.postMessage({
      id,
      error: {
        name: String((error && error.name) || 'Error'),
        message: String((error && error.message) || error),
        code: error && error.code,
        retryable: error && error.retryable,
        limit: error && error.limit,
      },
    });
  }
});
`;

function revive(error: SerializedError): Error {
  if (error.name === 'DocumentBudgetError' && error.limit) {
    const revived = new DocumentBudgetError(error.limit, '');
    revived.message = error.message;
    return revived;
  }
  if (error.code && typeof error.retryable === 'boolean')
    return new DocumentProcessingError(error.code, error.message, error.retryable);
  return new DocumentProcessingError(DocumentsExceptionCode.INGESTION_FAILED, error.message, true);
}

/**
 * Parses large office and PDF files on a thread of their own: a 9 MB docx is seconds of synchronous
 * unzip, XML and HTML work, which on the API's event loop would hold every request (and the embedded
 * database's socket, which the same loop serves) for that long. One thread, started on first use and
 * kept while the process runs (unref'd); parses queue on it in arrival order. Small files and text
 * formats parse inline. A thread that dies (out of memory on a hostile file) fails the parses it had
 * as retryable and is started again for the next one.
 */
@Injectable()
export class DocumentParseThread implements OnApplicationShutdown {
  private readonly logger = new Logger('DocumentParseThread');
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly pending = new Map<
    number,
    { resolve: (b: ParsedBlock[]) => void; reject: (e: Error) => void }
  >();
  private parsedOnThread = 0;

  /** How many parses ran on the thread (the rest ran inline). */
  get threadedParses(): number {
    return this.parsedOnThread;
  }

  /** Whether a file of this format and size is parsed on the thread. */
  static threaded(format: DocumentFormat, bytes: number): boolean {
    return THREADED_FORMATS.has(format) && bytes >= THREADED_MIN_BYTES;
  }

  /** `parseDocument`, on the thread when `threaded` says so (or `force`), otherwise inline. */
  parse(
    buffer: Buffer,
    format: DocumentFormat,
    budget: ParseBudget,
    options: { force?: boolean } = {},
  ): Promise<ParsedBlock[]> {
    if (!options.force && !DocumentParseThread.threaded(format, buffer.length))
      return parseDocument(buffer, format, budget);
    this.parsedOnThread++;
    const worker = this.thread();
    const id = this.nextId++;
    // A copy the thread owns (transferred, not cloned again); the caller keeps its buffer.
    const bytes = new Uint8Array(buffer);
    return new Promise<ParsedBlock[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, bytes, format, budget } satisfies ParseRequest, [bytes.buffer]);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const typescript = __filename.endsWith('.ts');
    const workerData: ThreadData = {
      parser: path.join(__dirname, 'document-parser'),
      typescript: typescript
        ? {
            swc: require.resolve('@swc/core'),
            options: path.resolve(__dirname, '../../../../scripts/swc-options.cjs'),
          }
        : null,
    };
    const worker = new Worker(THREAD_SOURCE, { eval: true, workerData });
    worker.unref();
    worker.on('message', (reply: ParseReply) => {
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if ('blocks' in reply) waiter.resolve(reply.blocks);
      else waiter.reject(revive(reply.error));
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiter of this.pending.values())
        waiter.reject(
          new DocumentProcessingError(
            DocumentsExceptionCode.INGESTION_FAILED,
            `the parser thread stopped (${error.message})`,
            true,
          ),
        );
      this.pending.clear();
    };
    worker.on('error', (error) => {
      this.logger.error({ msg: 'parser thread failed', error: error.message });
      fail(error);
    });
    worker.on('exit', (code) => fail(new Error(`exit code ${code}`)));
    this.worker = worker;
    return worker;
  }
}
