import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startOtlpReceiver, type OtlpReceiver } from '../../bench/otlp-receiver.ts';

/**
 * One export request each, as the OpenTelemetry JS OTLP/HTTP exporters (exporter-trace-otlp-proto and
 * exporter-trace-otlp-http 0.208) sent it: three spans, two under the `agent-runs` scope and one
 * under another, of one resource.
 */
const PROTOBUF_EXPORT = readFileSync(new URL('fixtures/otlp-traces.binpb', import.meta.url));
const JSON_EXPORT = readFileSync(new URL('fixtures/otlp-traces.json', import.meta.url));

describe("the bench's local OTLP/HTTP trace receiver (npm run bench -- --tracing)", () => {
  let receiver: OtlpReceiver;
  before(async () => {
    receiver = await startOtlpReceiver();
  });
  after(() => receiver.close());

  const post = (body: Buffer | string, contentType: string, path = '/v1/traces') =>
    fetch(`${receiver.url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });

  it('takes an http/protobuf export: 200 with an empty protobuf response, its spans counted', async () => {
    const before = receiver.exports();
    const response = await post(PROTOBUF_EXPORT, 'application/x-protobuf');
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/x-protobuf');
    assert.equal((await response.arrayBuffer()).byteLength, 0);
    const after = receiver.exports();
    assert.equal(after.requests - before.requests, 1);
    assert.equal(after.bytes - before.bytes, PROTOBUF_EXPORT.length);
    assert.equal(after.spans - before.spans, 3);
    assert.equal(after.unreadable, before.unreadable);
  });

  it('takes an http/json export: 200 with {}, its spans counted', async () => {
    const before = receiver.exports();
    const response = await post(JSON_EXPORT, 'application/json');
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(await response.json(), {});
    const after = receiver.exports();
    assert.equal(after.requests - before.requests, 1);
    assert.equal(after.spans - before.spans, 3);
    assert.equal(after.unreadable, before.unreadable);
  });

  it('answers a body it cannot read with 200 too, counted as unreadable, with no span', async () => {
    const before = receiver.exports();
    assert.equal((await post(PROTOBUF_EXPORT.subarray(0, 100), 'application/x-protobuf')).status, 200);
    assert.equal((await post('{"resourceSpans": [', 'application/json')).status, 200);
    const after = receiver.exports();
    assert.equal(after.requests - before.requests, 2);
    assert.equal(after.unreadable - before.unreadable, 2);
    assert.equal(after.spans, before.spans);
  });

  it('anything but POST /v1/traces is 404 and counts nothing', async () => {
    const before = receiver.exports();
    assert.equal((await post(PROTOBUF_EXPORT, 'application/x-protobuf', '/v1/metrics')).status, 404);
    assert.equal((await fetch(`${receiver.url}/v1/traces`)).status, 404);
    assert.deepEqual(receiver.exports(), before);
  });
});
