import { StoreUnavailableError } from '../domain/errors.ts';

/** Socket errors of a Redis server that is down, restarting or cut off. */
const UNREACHABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * What ioredis says when a command cannot reach the server: its retries per request ran out, the
 * connection closed under it, it is not connected and may not queue the command, or the command
 * timed out; and a server still loading its data.
 */
const UNREACHABLE_MESSAGES = [
  'Connection is closed.',
  "Stream isn't writeable and enableOfflineQueue options is false",
  'Command timed out',
  'LOADING ',
];

/** True for an ioredis (or BullMQ) failure that says Redis is unreachable, not that a command is wrong. */
export function isRedisUnreachable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNREACHABLE_SOCKET_CODES.has(code)) return true;
  return UNREACHABLE_MESSAGES.some((message) => error.message.startsWith(message));
}

/** The error, or the domain's `StoreUnavailableError` (with it as cause) when Redis is unreachable. */
export function classifyRedisError(error: unknown): unknown {
  return isRedisUnreachable(error) ? new StoreUnavailableError('redis', error) : error;
}

/** Awaits a Redis command, classifying its failure. */
export async function redisCommand<T>(command: Promise<T>): Promise<T> {
  try {
    return await command;
  } catch (error) {
    throw classifyRedisError(error);
  }
}
