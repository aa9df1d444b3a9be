import type { Response } from 'express';

/** An AbortSignal that fires when the client goes away before the response was sent. */
export function abortOnDisconnect(response: Response): AbortSignal {
  const controller = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) controller.abort(new Error('client disconnected'));
  });
  return controller.signal;
}
