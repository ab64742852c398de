import pino, { type Logger } from 'pino';

/** Structured JSON logs. Credentials are redacted wherever they could appear; prompts are never logged at info. */
export function createLogger(level: string, fd: 1 | 2 = 1): Logger {
  return pino(
    {
      level,
      base: { service: 'agent-runs' },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["x-api-key"]',
          '*.apiKey',
          '*.key',
          '*.password',
          '*.clientSecret',
        ],
        censor: '[redacted]',
      },
    },
    pino.destination({ fd, sync: false }),
  );
}
