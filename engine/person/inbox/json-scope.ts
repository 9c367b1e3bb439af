// A fastify scope that reads JSON bodies only (any other content type is
// 415 before anything is read: a cross-site form post cannot reach a
// handler), bounded (413), malformed JSON 400, every error as
// `{ error, detail }`, and no response cached or sniffed. The inbox's own
// routes and the rules API share it.
import type { FastifyInstance } from 'fastify';

export function jsonOnly(scope: FastifyInstance, maxBody: number, onInternal?: (e: Error) => void): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: maxBody }, (_req, body, done) => {
    try {
      done(null, JSON.parse(String(body) || '{}'));
    } catch {
      done(Object.assign(new Error('the body is not valid JSON'), { statusCode: 400 }), undefined);
    }
  });
  scope.setErrorHandler((err: Error & { statusCode?: number }, _req, reply) => {
    const status = err.statusCode ?? 500;
    if (status === 415) return reply.code(415).send({ error: 'unsupported-media-type', detail: 'send application/json' });
    if (status === 413) return reply.code(413).send({ error: 'payload-too-large', detail: `body exceeds ${maxBody} bytes` });
    if (status < 500) return reply.code(status).send({ error: 'bad-request', detail: err.message });
    onInternal?.(err);
    return reply.code(500).send({ error: 'internal' });
  });
  scope.addHook('onSend', async (_req, reply, payload) => {
    reply.header('cache-control', 'no-store').header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
    return payload;
  });
}
