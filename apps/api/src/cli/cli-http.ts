/**
 * fetch for the CLI's HTTP commands: an unreachable server or an answer that is not JSON fails with an
 * error naming the method and URL (fetch itself only says "fetch failed"), and an error status with the
 * server's `error: message`.
 */
export async function fetchJson<T>(method: string, url: URL, init: RequestInit = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, method });
  } catch (error) {
    const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new Error(`${method} ${url.href} failed: ${reason} (is the server running at ${url.origin}?)`);
  }
  const text = await response.text();
  let payload: (T & { message?: string; error?: string }) | undefined;
  try {
    payload = JSON.parse(text) as T & { message?: string; error?: string };
  } catch {
    throw new Error(
      `${method} ${url.href} answered ${response.status} with a body that is not JSON: ${text.slice(0, 120)}`,
    );
  }
  if (!response.ok) throw new Error(`${response.status} ${payload.error ?? ''}: ${payload.message ?? ''}`);
  return payload;
}
