import { Logger, StreamableFile } from '@nestjs/common';
import type { Response } from 'express';
import { PassThrough } from 'node:stream';
import { RequestContext } from '../context/request-context';
import { AppException } from '../errors/app.exception';
import type { RunEventName, RunObserver } from './run-events';

export const EVENT_STREAM = 'text/event-stream';
const HEARTBEAT_MS = 15_000;
const logger = new Logger('EventStream');

/** The client asked for server-sent events (`Accept: text/event-stream`), as MCP's streamable HTTP does. */
export function wantsEventStream(accept: string | undefined): boolean {
  return typeof accept === 'string' && accept.toLowerCase().includes(EVENT_STREAM);
}

/** One server-sent event: `event: <name>` and its JSON `data` on one line. */
export function formatEvent(event: RunEventName, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Runs `run` and streams its events as `text/event-stream`, ending with `done` (the result, the same
 * body as the JSON response) or `error` (`{ error, message, requestId }`). A failure before the first
 * event is thrown instead, so it is answered as a plain JSON error with its status. The observer's
 * signal aborts when the client disconnects. A comment line every 15 s keeps proxies from timing out.
 */
export async function streamRun<T>(
  response: Response,
  run: (observer: RunObserver) => Promise<T>,
): Promise<StreamableFile> {
  const stream = new PassThrough();
  const disconnect = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) disconnect.abort(new Error('client disconnected'));
  });
  const requestId = RequestContext.requestId();
  const write = (chunk: string) => {
    if (!stream.destroyed && !stream.writableEnded) stream.write(chunk);
  };
  let markStarted!: () => void;
  const firstEvent = new Promise<void>((resolve) => (markStarted = resolve));
  const heartbeat = setInterval(() => write(': keep-alive\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  const finished = run({
    signal: disconnect.signal,
    emit: (event, data) => {
      markStarted();
      write(formatEvent(event, data));
    },
  });
  try {
    await Promise.race([firstEvent, finished]);
  } catch (error) {
    clearInterval(heartbeat);
    throw error;
  }
  markStarted();
  finished
    .then(
      (result) => write(formatEvent('done', result)),
      (error: unknown) => write(formatEvent('error', errorEvent(error, requestId))),
    )
    .finally(() => {
      clearInterval(heartbeat);
      stream.end();
    });
  response.setHeader('cache-control', 'no-cache, no-transform');
  response.setHeader('x-accel-buffering', 'no');
  return new StreamableFile(stream, { type: `${EVENT_STREAM}; charset=utf-8` });
}

function errorEvent(error: unknown, requestId: string | undefined) {
  if (error instanceof AppException)
    return {
      error: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
      requestId,
    };
  logger.error({ msg: 'streamed run failed', error: (error as Error)?.message, requestId });
  return {
    error: 'INTERNAL_ERROR',
    message: 'An unexpected error occurred. Quote the requestId when reporting it.',
    requestId,
  };
}
