// Deliveries to `satang listen` (the CLI on a developer's machine, which the server cannot
// reach): an endpoint of type `cli` has the URL cli://listen/<stream id>, and the poster
// hands its deliveries to the open Server-Sent Events stream of that id instead of POSTing
// them. Each delivery goes out as one `event: delivery` whose data holds the headers and
// the body bytes (base64) exactly as an HTTP endpoint would receive them — signature
// included — so the CLI can forward them byte for byte.
//
// A delivery counts as delivered once written to the stream; with no stream open (the
// CLI went away and its endpoint is about to be removed) it is retried like any failure.
// A stream whose key is revoked, or whose merchant is suspended, since it opened is ended
// (before a delivery, and at each heartbeat), as the next request with that key is refused.

import type { Poster, PostResult } from './http-post.ts';

const cliPrefix = 'cli://listen/';

export const cliEndpointUrl = (streamId: string): string => `${cliPrefix}${streamId}`;
export const isCliUrl = (url: string): boolean => url.startsWith(cliPrefix);

/** Where a stream's events are written (the SSE response); false once it is gone. */
export interface StreamSink {
  write(chunk: string): boolean;
  end(): void;
  /** Whether the stream may still be served (its key not revoked, its merchant not suspended); it is ended when not. */
  admits?(): boolean;
}

export class CliStreams {
  private readonly open = new Map<string, StreamSink>();

  add(streamId: string, sink: StreamSink): void { this.open.set(streamId, sink); }
  remove(streamId: string): void { this.open.delete(streamId); }

  /** Writes one SSE event to the stream of `url`; false when no such stream is open. */
  send(url: string, event: string, data: unknown, id?: string): boolean {
    const sink = this.open.get(url.slice(cliPrefix.length));
    if (!sink) return false;
    if (sink.admits && !sink.admits()) return false; // it ended itself: the delivery waits like one to a stream gone
    sink.write(`event: ${event}\n${id ? `id: ${id}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
    return true;
  }

  /** Ends every open stream (shutdown: a long-lived response must not hold the drain). */
  closeAll(): void {
    for (const sink of this.open.values()) sink.end();
    this.open.clear();
  }
}

/** Posts to HTTP endpoints through `http`; hands cli:// deliveries to their stream. */
export class CliAwarePoster implements Poster {
  constructor(private readonly http: Poster, private readonly streams: CliStreams) {}

  async post(url: string, headers: Record<string, string>, body: Buffer): Promise<PostResult> {
    if (!isCliUrl(url)) return this.http.post(url, headers, body);
    const started = performance.now();
    const sent = this.streams.send(url, 'delivery', { headers, body_base64: body.toString('base64') }, headers['X-PG-Delivery-Id']);
    const durationMs = Math.round(performance.now() - started);
    return sent
      ? { outcome: 'delivered', status: 200, excerpt: null, durationMs, error: null }
      : { outcome: 'retry', status: null, excerpt: null, durationMs, error: 'stream_not_connected: the satang listen stream is not connected' };
  }

  close(): void { this.http.close(); }
}
