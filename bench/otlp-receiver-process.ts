/**
 * The local OTLP/HTTP trace receiver (otlp-receiver.ts) in its own process, so that neither the
 * service nor the load generator pays for receiving the spans. `exports` answers what it received.
 */
import { serveParent } from './ipc.ts';
import { startOtlpReceiver } from './otlp-receiver.ts';

const receiver = await startOtlpReceiver();

serveParent({ type: 'ready', url: receiver.url }, { exports: () => receiver.exports() }, () =>
  receiver.close(),
);
