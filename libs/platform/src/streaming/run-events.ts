/**
 * What a streamed run (`Accept: text/event-stream` on the agent, chat and ask endpoints) tells its
 * caller while it works: `run.started` (the run's ids), `step.started` (a model turn, a tool call, a
 * plan or search step), `tool.result` (a tool call's outcome), `answer.delta` (answer text as the model
 * streams it), then `done` (the same body as the JSON response) or `error` (the JSON error body).
 */
export const RUN_EVENT_NAMES = [
  'run.started',
  'step.started',
  'tool.result',
  'answer.delta',
  'done',
  'error',
] as const;
export type RunEventName = (typeof RUN_EVENT_NAMES)[number];

/** The events a run emits itself (`done` and `error` are written by the stream). */
export type RunProgressEventName = Exclude<RunEventName, 'done' | 'error'>;

export type RunEventSink = (event: RunProgressEventName, data: Record<string, unknown>) => void;

/** A caller watching a run: its events, and its cancellation (the client went away). */
export interface RunObserver {
  emit: RunEventSink;
  /** Aborted when the client disconnects: the run stops its remaining work. */
  signal: AbortSignal;
}

/** Raised inside a run whose observer went away; the run is stored as cancelled. */
export class RunCancelledError extends Error {
  constructor(message = 'The client disconnected; the run was cancelled.') {
    super(message);
    this.name = 'RunCancelledError';
  }
}
