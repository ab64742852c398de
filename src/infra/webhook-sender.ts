import { Webhook } from 'standardwebhooks';
import { WEBHOOK_ATTEMPT_TIMEOUT_MS, type AttemptResult } from '../domain/webhooks.ts';
import type { WebhookRequest, WebhookSender } from '../engine/ports.ts';

/** Characters of a failed attempt's reason kept on the delivery. */
const MAX_ERROR_LENGTH = 500;

/**
 * Sends deliveries signed per Standard Webhooks 1.0 with the `standardwebhooks` library, through the
 * SSRF-guarded fetch the composition root hands it (a refused address fails the attempt). A `2xx`
 * within 15 s is success; a redirect is not followed (it is an answer that is not `2xx`).
 */
export class StandardWebhookSender implements WebhookSender {
  readonly #fetch: typeof globalThis.fetch;
  readonly #timeoutMs: number;

  constructor(fetch: typeof globalThis.fetch, timeoutMs = WEBHOOK_ATTEMPT_TIMEOUT_MS) {
    this.#fetch = fetch;
    this.#timeoutMs = timeoutMs;
  }

  async send(request: WebhookRequest, signal: AbortSignal): Promise<AttemptResult> {
    const timestamp = new Date();
    const signature = new Webhook(request.secret).sign(request.id, timestamp, request.payload);
    try {
      const response = await this.#fetch(request.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': request.id,
          'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
          'webhook-signature': signature,
        },
        body: request.payload,
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.#timeoutMs)]),
      });
      // The body is not needed; reading it to the end frees the connection.
      await response.body?.cancel().catch(() => undefined);
      const ok = response.status >= 200 && response.status < 300;
      return {
        ok,
        statusCode: response.status,
        error: ok ? null : `the receiver answered ${response.status}`,
      };
    } catch (error) {
      return { ok: false, statusCode: null, error: describeFailure(error) };
    }
  }
}

function describeFailure(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return 'no answer within 15 s';
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${message}${cause}`.slice(0, MAX_ERROR_LENGTH);
}
