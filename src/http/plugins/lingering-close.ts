import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';

export interface LingeringCloseOptions {
  /** Bytes of the unread body discarded after the answer; past them the connection is cut. */
  maxDiscardBytes: number;
  /** How long the client has after the answer to finish sending; then the connection is cut. */
  maxLingerMs: number;
}

/**
 * An answer given before the request's body has all arrived (a 413 over the route's limit, from the
 * content-length or found while streaming; a 401 or 429 from an onRequest hook) must reach a client
 * that is still sending. Node closes a `Connection: close` socket as soon as the answer is flushed;
 * the bytes still in flight then meet a TCP reset, so the client's writes fail (EPIPE) and the unread
 * answer can be lost with them (RFC 9112 §9.6). So such an answer says `Connection: close`, the socket
 * is only half-closed after it, and the rest of the body is read and discarded until it ends: clients
 * that read while sending (fetch, Node's http client) have the answer at once and stop; those that
 * read only after sending still get it. Discarding stops at `maxDiscardBytes` or `maxLingerMs`, where
 * the socket is closed: no client makes the server read without bound or holds it. Requests whose body
 * has arrived (nearly all) cost one property check.
 */
export function registerLingeringClose(app: FastifyInstance, options: LingeringCloseOptions): void {
  const lingering = new Set<Socket>();
  app.addHook('onSend', (request, reply, payload, done) => {
    const incoming = request.raw;
    // `inject` (the admin CLI's local calls) has no socket to keep open.
    if (!incoming.complete && incoming.socket instanceof Socket && !incoming.socket.destroyed) {
      reply.header('connection', 'close');
      discardRestOfBody(incoming, options, lingering);
    }
    done(null, payload);
  });
  app.addHook('preClose', (done) => {
    for (const socket of lingering) socket.destroy();
    done();
  });
}

function discardRestOfBody(
  incoming: IncomingMessage,
  options: LingeringCloseOptions,
  lingering: Set<Socket>,
) {
  const socket = incoming.socket;
  if (lingering.has(socket)) return;
  lingering.add(socket);
  const cut = () => socket.destroy();
  const deadline = setTimeout(cut, options.maxLingerMs).unref();
  socket.once('close', () => {
    clearTimeout(deadline);
    lingering.delete(socket);
  });

  // Reading the body here also keeps Node from dumping it after the answer, which has no bound.
  let discarded = 0;
  incoming.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > options.maxDiscardBytes) cut();
  });
  incoming.resume();

  // Once the answer is flushed, Node calls `destroySoon` on a `Connection: close` socket (end, then
  // destroy when the end is written). While the body is still coming, only end: the read side stays
  // open. When it has all arrived, nothing is left unread and Node's close is the right one.
  const closeAfterAnswer = socket.destroySoon;
  socket.destroySoon = function closeSendingSide(this: Socket) {
    if (incoming.complete) closeAfterAnswer.call(this);
    else this.end();
  };
  incoming.once('end', () => {
    if (socket.writableEnded) closeAfterAnswer.call(socket);
  });
}
