import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { WAIT_CAP_MS, withCap } from '../support/waits.ts';

/** One delivery attempt as the receiver saw it, checked with `standardwebhooks`' `Webhook.verify`. */
export interface ReceivedAttempt {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body as `Webhook.verify` returned it: the signature held. */
  verified: { type: string; timestamp: string; data: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- asserted field by field
}

/**
 * A webhook receiver on loopback, as an integrator would write one: every attempt's signature is
 * verified with the endpoint's secret (an attempt that fails verification fails the test). Answers
 * each path's scripted statuses in turn, then `200`.
 */
export class WebhookReceiver {
  readonly attempts: ReceivedAttempt[] = [];
  readonly unverified: string[] = [];
  readonly #secrets = new Map<string, string>();
  readonly #answers = new Map<string, Array<{ status: number; headers?: Record<string, string> }>>();
  readonly #answerers = new Map<string, (attempt: ReceivedAttempt | undefined) => number>();
  readonly #waiters = new Set<() => void>();
  readonly #server: Server;
  url = '';

  constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        const body = Buffer.concat(chunks).toString('utf8');
        const secret = this.#secrets.get(path);
        let received: ReceivedAttempt | undefined;
        try {
          if (secret === undefined) throw new Error(`no secret for ${path}`);
          const verified = new Webhook(secret).verify(body, req.headers as Record<string, string>);
          received = { path, headers: req.headers, body, verified: verified as ReceivedAttempt['verified'] };
          this.attempts.push(received);
        } catch (error) {
          this.unverified.push(`${path}: ${String(error)}`);
        }
        const answerer = this.#answerers.get(path);
        const answer = answerer
          ? { status: answerer(received) }
          : (this.#answers.get(path)?.shift() ?? { status: 200 });
        res.writeHead(answer.status, answer.headers).end();
        for (const waiter of this.#waiters) waiter();
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  /** The endpoint at `path` signs with `secret`; its next answers are `statuses` (then 200). */
  expect(
    path: string,
    secret: string,
    ...answers: Array<{ status: number; headers?: Record<string, string> }>
  ): void {
    this.#secrets.set(path, secret);
    this.#answers.set(path, answers);
  }

  /** The endpoint at `path` signs with `secret`; `answer` picks each attempt's status (undefined: unverified). */
  answerWith(path: string, secret: string, answer: (attempt: ReceivedAttempt | undefined) => number): void {
    this.#secrets.set(path, secret);
    this.#answerers.set(path, answer);
  }

  at(path: string): ReceivedAttempt[] {
    return this.attempts.filter((attempt) => attempt.path === path);
  }

  /** Resolves once `path` has received `count` verified attempts. */
  async waitFor(path: string, count: number): Promise<ReceivedAttempt[]> {
    await withCap(
      new Promise<void>((resolve) => {
        const check = () => {
          if (this.at(path).length < count) return;
          this.#waiters.delete(check);
          resolve();
        };
        this.#waiters.add(check);
        check();
      }),
      WAIT_CAP_MS,
      () =>
        `${path} received ${this.at(path).length} of ${count} attempts (unverified: ${this.unverified.join('; ')})`,
    );
    return this.at(path);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
