import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { RequestTracing } from '../../engine/ports/tracing.ts';

/**
 * A SERVER span per request, by wrapping the server's request listener rather than by patching
 * `node:http` (module patching must run before Fastify loads, which a service importing its SDK on
 * demand cannot promise). The span's parent is the caller's `traceparent`; the listener runs in its
 * context, and so does the handler: Fastify carries the request's async context over the body's
 * socket events itself (an AsyncResource per parse).
 *
 * The request and response emitters are not bound to the context (`context.bind`): that patched
 * seven methods on both objects of every request and wrapped every listener added to them, which
 * the bench's profile showed to be about 40 % of tracing's own CPU per run, for no span.
 */
export function httpServerSpans(tracer: Tracer): RequestTracing {
  const spans = new WeakMap<IncomingMessage, Span>();
  const traced = (handler: (request: IncomingMessage, response: ServerResponse) => void) =>
    function tracedRequest(request: IncomingMessage, response: ServerResponse): void {
      const method = request.method ?? 'GET';
      const parent = propagation.extract(ROOT_CONTEXT, request.headers);
      const span = tracer.startSpan(
        method,
        {
          kind: SpanKind.SERVER,
          attributes: {
            'http.request.method': method,
            'url.path': (request.url ?? '/').split('?', 1)[0] ?? '/',
            'url.scheme': 'http',
            'network.protocol.version': request.httpVersion,
          },
        },
        parent,
      );
      spans.set(request, span);
      const inSpan = trace.setSpan(parent, span);
      response.once('close', () => {
        const status = response.statusCode;
        span.setAttribute('http.response.status_code', status);
        if (status >= 500) {
          span.setAttribute('error.type', String(status));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
      });
      context.with(inSpan, () => handler(request, response));
    };
  return {
    traced,
    routed(request, route) {
      const span = spans.get(request);
      if (!span) return;
      span.setAttribute('http.route', route);
      span.updateName(`${request.method ?? 'GET'} ${route}`);
    },
  };
}
