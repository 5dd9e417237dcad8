// Reads a slip upload's body from the socket itself (the app's JSON body parser skips this
// route): the Content-Type picks the shape, the shape's wire cap (wireBytesMax) bounds what
// is read. Invariants kept: a body whose Content-Length is over the cap is refused before a
// byte of it is read; a body without Content-Length is read until the cap and no further
// (the socket is paused, and the route closes the connection after answering, so the rest
// is never read); compressed bodies are refused, since max_bytes counts decoded bytes.

import type { Context } from 'koa';
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors.ts';
import { refuseOtherCharset } from '../request-body.ts';
import { slipUploadLimits } from '../../core/limits.ts';
import { evidenceFromJson, evidenceFromMultipart, type Accepts, type Evidence } from './evidence.ts';

/** Base64 of `bytes`, with room for a line break (escaped in JSON: up to 4 bytes) every 64 characters. */
function base64WireBytesMax(bytes: number): number {
  const chars = Math.ceil(bytes / 3) * 4;
  return chars + 4 * Math.ceil(chars / 64);
}

/** The most a request body may carry on the wire, by shape, for `maxBytes` of decoded evidence; a larger one is refused unread. */
function wireBytesMax(shape: 'multipart' | 'json', maxBytes: number): number {
  return shape === 'multipart'
    ? maxBytes + slipUploadLimits.multipartOverheadBytesMax
    : base64WireBytesMax(maxBytes) + slipUploadLimits.jsonOverheadBytesMax;
}

/** True once the request's body was read to its end (the connection can then be kept). */
export function bodyWasRead(ctx: Context): boolean {
  return (ctx.state as { slipBodyRead?: boolean }).slipBodyRead === true;
}

export async function readEvidence(ctx: Context, accepts: Accepts): Promise<Evidence> {
  const shape = ctx.is('multipart/form-data') ? 'multipart' : ctx.is('application/json') ? 'json' : null;
  if (shape === null || (shape === 'json' && !accepts.contentTypes.includes('application/json'))) {
    throw new ApiError('unsupported_media_type', 'Send the slip as multipart/form-data (file, payload) or, where content_types allows it, as application/json.');
  }
  if (shape === 'json') refuseOtherCharset(ctx); // read as UTF-8 whatever it says, a latin-1 payload would be altered
  const encoding = ctx.get('Content-Encoding').trim().toLowerCase();
  if (encoding !== '' && encoding !== 'identity') throw new ApiError('unsupported_media_type', 'Compressed slip uploads are not accepted.');
  const capBytes = wireBytesMax(shape, accepts.maxBytes);
  const tooLarge = () => new ApiError('validation_error', `The request body is larger than this upload accepts (${capBytes} bytes on the wire).`, {
    fields: [{ path: '', reason: 'too_large', hint: `max_bytes is ${accepts.maxBytes} decoded bytes` }],
  });
  const declared = ctx.get('Content-Length');
  if (declared !== '' && Number(declared) > capBytes) throw tooLarge();
  const body = await readCapped(ctx.req, capBytes);
  if (body === null) throw tooLarge();
  (ctx.state as { slipBodyRead?: boolean }).slipBodyRead = true;
  return shape === 'multipart' ? evidenceFromMultipart(body, ctx.get('Content-Type'), accepts) : evidenceFromJson(body, accepts);
}

/** The whole body, or null as soon as it passes capBytes (the stream is left paused). */
function readCapped(req: IncomingMessage, capBytes: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > capBytes) {
        done();
        req.pause();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => { done(); resolve(Buffer.concat(chunks, total)); };
    const onError = (error: Error) => { done(); reject(error); };
    const onClose = () => { done(); reject(new ApiError('validation_error', 'The request body ended early.', { fields: [{ path: '', reason: 'incomplete' }] })); };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
