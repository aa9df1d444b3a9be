import type dns from 'node:dns';
import http, { IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import {
  type AddressResolver,
  defaultPort,
  EgressPolicy,
  EgressRefusedError,
  systemResolver,
  vetHost,
} from '@app/platform';
import { ToolError, ToolErrorCode } from '../core/tool.types';

export enum OutboundErrorCode {
  URL_NOT_ALLOWED = 'URL_NOT_ALLOWED',
  ADDRESS_BLOCKED = 'ADDRESS_BLOCKED',
  DNS_FAILED = 'DNS_FAILED',
  CONNECTION_FAILED = 'CONNECTION_FAILED',
  TOO_MANY_REDIRECTS = 'TOO_MANY_REDIRECTS',
  RESPONSE_TOO_LARGE = 'RESPONSE_TOO_LARGE',
}

export const MAX_REDIRECTS = 5;

export interface OutboundRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxResponseBytes: number;
  signal: AbortSignal;
  /** Header names that carry credentials: dropped when a redirect leaves the original origin. */
  credentialHeaders?: string[];
  /** Redirects followed (default MAX_REDIRECTS); at 0 a redirect response is returned as it came. */
  maxRedirects?: number;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  url: string;
  redirects: number;
}

export type { AddressResolver } from '@app/platform';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const HOP_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'accept-encoding']);
const ALWAYS_CREDENTIALS = ['authorization', 'proxy-authorization', 'cookie'];

interface VettedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/**
 * Outbound HTTP for tools with SSRF protection: http/https only; the host is resolved here and every
 * address is checked before connecting; the connection goes to the vetted address (pinned through
 * `lookup`, so Host and TLS SNI keep the name and no second DNS answer can swap in another address);
 * redirects are followed by hand and re-checked; time and response size are capped.
 */
export class OutboundHttpClient {
  constructor(
    private readonly policy: EgressPolicy,
    private readonly resolver: AddressResolver = systemResolver,
  ) {}

  async request(request: OutboundRequest): Promise<OutboundResponse> {
    const timeout = AbortSignal.timeout(Math.max(1, request.timeoutMs));
    const signal = AbortSignal.any([request.signal, timeout]);
    const origin = new URL(request.url).origin;
    let { method, body } = request;
    let headers = { ...request.headers };
    let url = request.url;
    const maxRedirects = Math.min(request.maxRedirects ?? MAX_REDIRECTS, MAX_REDIRECTS);
    try {
      for (let redirects = 0; ; redirects++) {
        const target = await this.vet(url, signal);
        const response = await this.send(target, method, headers, body, request.maxResponseBytes, signal);
        const location = response.headers.location;
        if (!REDIRECT_STATUSES.has(response.status) || !location || maxRedirects === 0)
          return { ...response, redirects };
        if (redirects >= maxRedirects) {
          throw new ToolError(OutboundErrorCode.TOO_MANY_REDIRECTS, `More than ${maxRedirects} redirects.`, {
            redirects,
          });
        }
        const next = new URL(location, target.url);
        if (
          response.status === 303 ||
          ((response.status === 301 || response.status === 302) && method === 'POST')
        ) {
          method = 'GET';
          body = undefined;
        }
        if (next.origin !== origin) {
          const drop = new Set([
            ...ALWAYS_CREDENTIALS,
            ...(request.credentialHeaders ?? []).map((h) => h.toLowerCase()),
          ]);
          headers = Object.fromEntries(
            Object.entries(headers).filter(([name]) => !drop.has(name.toLowerCase())),
          );
        }
        url = next.toString();
      }
    } catch (error) {
      if (error instanceof ToolError) throw error;
      if (request.signal.aborted) throw new ToolError(ToolErrorCode.CANCELLED, 'The request was cancelled.');
      if (timeout.aborted) {
        throw new ToolError(ToolErrorCode.TIMEOUT, `No complete response within ${request.timeoutMs} ms.`, {
          timeout_ms: request.timeoutMs,
        });
      }
      throw new ToolError(OutboundErrorCode.CONNECTION_FAILED, `Request failed: ${(error as Error).message}`);
    }
  }

  /** Checks the URL and resolves its host to an address that may be contacted. */
  async vet(rawUrl: string, signal?: AbortSignal): Promise<VettedTarget> {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      throw new ToolError(OutboundErrorCode.URL_NOT_ALLOWED, 'The URL is not valid.');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ToolError(
        OutboundErrorCode.URL_NOT_ALLOWED,
        `Only http and https URLs are allowed, not ${url.protocol}`,
      );
    }
    if (url.username || url.password) {
      throw new ToolError(
        OutboundErrorCode.URL_NOT_ALLOWED,
        'Credentials in the URL are not allowed; use a header.',
      );
    }
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    const port = url.port ? Number(url.port) : defaultPort(url.protocol);
    try {
      const vetted = await vetHost(this.policy, hostname, port, this.resolver);
      signal?.throwIfAborted();
      return { url, address: vetted.address, family: vetted.family };
    } catch (error) {
      if (!(error instanceof EgressRefusedError)) throw error;
      const code =
        error.reason === 'blocked' ? OutboundErrorCode.ADDRESS_BLOCKED : OutboundErrorCode.DNS_FAILED;
      throw new ToolError(code, error.message, error.details);
    }
  }

  private send(
    target: VettedTarget,
    method: string,
    headers: Record<string, string>,
    body: string | undefined,
    maxBytes: number,
    signal: AbortSignal,
  ): Promise<Omit<OutboundResponse, 'redirects'>> {
    const pinned: LookupFunction = (_hostname, options, callback) => {
      if ((options as dns.LookupAllOptions).all) {
        (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [
          { address: target.address, family: target.family },
        ]);
      } else {
        callback(null, target.address, target.family);
      }
    };
    const outgoing: Record<string, string> = {
      'user-agent': 'ops-copilot-http-tool',
      'accept-encoding': 'identity',
    };
    for (const [name, value] of Object.entries(headers)) {
      if (!HOP_HEADERS.has(name.toLowerCase())) outgoing[name] = value;
    }
    if (body !== undefined) outgoing['content-length'] = String(Buffer.byteLength(body));
    const transport = target.url.protocol === 'https:' ? https : http;

    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        outcome();
      };
      const fail = (error: Error) => settle(() => reject(error));
      const req = transport.request(
        target.url,
        { method, headers: outgoing, lookup: pinned, agent: false, signal },
        (res) => {
          const declared = Number(res.headers['content-length']);
          if (Number.isFinite(declared) && declared > maxBytes) {
            fail(tooLarge(maxBytes, declared));
            req.destroy();
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBytes) {
              fail(tooLarge(maxBytes));
              req.destroy();
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () =>
            settle(() =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: Buffer.concat(chunks),
                url: target.url.toString(),
              }),
            ),
          );
          res.on('error', fail);
          res.on('aborted', () => fail(new Error('the response was cut off')));
        },
      );
      req.on('error', fail);
      if (body !== undefined) req.write(body);
      req.end();
    });
  }
}

function tooLarge(maxBytes: number, declared?: number): ToolError {
  return new ToolError(OutboundErrorCode.RESPONSE_TOO_LARGE, `The response exceeds ${maxBytes} bytes.`, {
    max_response_bytes: maxBytes,
    ...(declared !== undefined ? { content_length: declared } : {}),
  });
}
