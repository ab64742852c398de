/**
 * Which deployment the HTTP-level suites start the service as, chosen once for the whole run:
 *
 * - `embedded` (the default, `npm test`): one process on SQLite with the in-process queue and bus;
 * - `scale-out` (`npm run test:scale`, `AGENT_RUNS_TEST_DEPLOYMENT=scale-out`): PostgreSQL and Redis,
 *   with the API in the test's process and the worker in a process of its own.
 *
 * The suites are the same files on both; a test that cannot apply to one deployment says why with
 * `embeddedOnly` / `scaleOutOnly`, which the runner prints as the skip reason.
 */
export type Deployment = 'embedded' | 'scale-out';

export const DEPLOYMENT: Deployment =
  process.env.AGENT_RUNS_TEST_DEPLOYMENT === 'scale-out' ? 'scale-out' : 'embedded';

export const SCALE_OUT = DEPLOYMENT === 'scale-out';

/** Test options that skip the test on the scale-out deployment, saying why. */
export function embeddedOnly(why: string): { skip?: string } {
  return SCALE_OUT ? { skip: `embedded deployment only: ${why}` } : {};
}

/** Test options that skip the test on the embedded deployment, saying why. */
export function scaleOutOnly(why: string): { skip?: string } {
  return SCALE_OUT ? {} : { skip: `scale-out deployment only: ${why}` };
}
