// Reads a POST body as JSON-RPC and refuses, before the SDK sees it, what
// JSON-RPC and the Streamable HTTP transport refuse: a body over the limit
// (413: by its Content-Length before a byte is read, else as soon as the
// count passes the limit), a body that is not JSON (-32700), and JSON that is
// not JSON-RPC messages (-32600).
import type { IncomingMessage } from 'node:http';
import { isSpecType } from '@modelcontextprotocol/server';
import { INVALID_REQUEST, PARSE_ERROR, refusal, type HttpRefusal } from './json-rpc-errors';

export type BodyResult = { ok: true; value: unknown } | { ok: false; refusal: HttpRefusal };

/** A refusal after which the rest of the request is not read: the connection must close. */
export function tooLarge(max: number): HttpRefusal {
  return refusal(413, `request body over ${max} bytes`, undefined, { Connection: 'close' });
}

export async function readJsonRpcBody(req: IncomingMessage, max: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) {
    req.resume(); // discarded unread, so the client can still read the 413
    return { ok: false, refusal: tooLarge(max) };
  }
  const text = await readCapped(req, max);
  if (text === undefined) return { ok: false, refusal: tooLarge(max) };
  if (text.trim() === '') return { ok: false, refusal: refusal(400, 'Parse error: empty request body, expected JSON-RPC', PARSE_ERROR) };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, refusal: refusal(400, `Parse error: ${(e as Error).message}`, PARSE_ERROR) };
  }
  const invalid = jsonRpcProblem(value);
  if (invalid) return { ok: false, refusal: refusal(400, `Invalid Request: ${invalid}`, INVALID_REQUEST) };
  return { ok: true, value };
}

/** Why a parsed body is not one JSON-RPC message or a non-empty batch of them. */
export function jsonRpcProblem(value: unknown): string | undefined {
  const messages = Array.isArray(value) ? value : [value];
  if (messages.length === 0) return 'an empty batch';
  for (const m of messages) {
    if (!isSpecType.JSONRPCMessage(m)) return 'not a JSON-RPC 2.0 request, notification or response';
  }
  return undefined;
}

// The body as text, or undefined once it passes `max` bytes; reading stops there.
function readCapped(req: IncomingMessage, max: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > max) {
        done();
        // The rest is discarded as it arrives (never kept), so the client
        // can still read the 413 before the connection closes.
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      done();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onError = (e: Error): void => {
      done();
      reject(e);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
