/**
 * A webhook receiver that verifies every delivery with the `standardwebhooks` package.
 *
 *   WEBHOOK_SECRET=whsec_… PORT=8787 node examples/webhooks/receiver.ts
 *
 * Deliveries are at least once: a retry carries the same `webhook-id`, so the receiver skips an id it
 * has handled. It answers at once and works afterwards (the service waits 15 s for a 2xx).
 */
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

interface RunEventPayload {
  type: 'run.succeeded' | 'run.failed' | 'run.cancelled' | 'run.waiting';
  timestamp: string;
  data: {
    runId: string;
    status: string;
    text: string | null;
    error: { errorClass: string; message: string } | null;
  };
}

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error('set WEBHOOK_SECRET to the secret the endpoint was created with');
const webhook = new Webhook(secret);
const handled = new Set<string>();

const server = createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk: string) => (body += chunk));
  request.on('end', () => {
    let event: RunEventPayload;
    try {
      // Checks the HMAC over "{webhook-id}.{webhook-timestamp}.{body}" and that the timestamp is recent.
      event = webhook.verify(body, request.headers as Record<string, string>) as RunEventPayload;
    } catch {
      response.writeHead(400).end();
      return;
    }
    response.writeHead(204).end();
    const id = String(request.headers['webhook-id']);
    if (handled.has(id)) return;
    handled.add(id);
    console.log(`${event.type} ${event.data.runId} ${event.data.status}`);
  });
});

server.listen(Number(process.env.PORT ?? 8787), '127.0.0.1', () => {
  const address = server.address();
  console.log(
    `receiving webhooks on http://127.0.0.1:${typeof address === 'object' && address ? address.port : ''}`,
  );
});
