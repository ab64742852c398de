import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { ConfigError, type Config } from './config.ts';

export interface ResolvedSecret {
  secret: string;
  /** Where a generated secret was kept, when it was not configured. */
  generatedAt?: string;
}

/**
 * AGENT_RUNS_SECRET when set. With embedded storage and no secret, one is
 * generated once and kept beside the database (mode 0600), so restarts can
 * still decrypt stored provider keys. With PostgreSQL every replica must share
 * the secret, so it has to be configured.
 */
export function resolveSecret(config: Config): ResolvedSecret {
  if (config.secret) return { secret: config.secret };
  if (config.storage.engine !== 'sqlite' || config.storage.path === ':memory:') {
    if (config.storage.engine === 'sqlite') return { secret: randomBytes(32).toString('base64url') };
    throw new ConfigError(
      'invalid configuration:\n  AGENT_RUNS_SECRET: required with a postgres:// DATABASE_URL (every replica must share it); use at least 32 random characters',
    );
  }
  const path = join(dirname(config.storage.path), 'agent-runs.secret');
  if (existsSync(path)) return { secret: readFileSync(path, 'utf8').trim(), generatedAt: path };
  mkdirSync(dirname(path), { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(path, `${secret}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return { secret, generatedAt: path };
}

/** Below these lengths a secret is guessable; the service still starts, with a warning. */
const RECOMMENDED_SECRET_LENGTH = 32;
const RECOMMENDED_ADMIN_TOKEN_LENGTH = 16;

/**
 * Warns of a secret generated outside dev mode (`generatedAt`: where it is kept) and of a configured
 * secret or admin token too short to resist guessing.
 */
export function warnAboutSecrets(
  config: Pick<Config, 'secret' | 'adminToken'>,
  resolved: { generatedAt: string | undefined; dev: boolean },
  logger: Pick<Logger, 'warn'>,
): void {
  if (resolved.generatedAt && !resolved.dev) {
    logger.warn(
      { path: resolved.generatedAt },
      'AGENT_RUNS_SECRET is not set: using a generated secret kept beside the database',
    );
  }
  if (config.secret !== undefined && config.secret.length < RECOMMENDED_SECRET_LENGTH) {
    logger.warn(`AGENT_RUNS_SECRET is shorter than ${RECOMMENDED_SECRET_LENGTH} characters`);
  }
  if (config.adminToken !== undefined && config.adminToken.length < RECOMMENDED_ADMIN_TOKEN_LENGTH) {
    logger.warn(`AGENT_RUNS_ADMIN_TOKEN is shorter than ${RECOMMENDED_ADMIN_TOKEN_LENGTH} characters`);
  }
}
