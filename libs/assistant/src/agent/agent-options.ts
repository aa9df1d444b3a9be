/** Limits of the tool-calling agent, read from the environment by the module. */
export abstract class AgentOptions {
  /** Whole request: every model call and tool run must end within it. */
  abstract readonly timeoutMs: number;
  /** Characters of one tool result (and of the request context) put back into the prompt. */
  abstract readonly toolResultChars: number;
}
