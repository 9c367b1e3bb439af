// Client side of the relay, for the consumer CLI (tail, answer, cancel),
// bridges and the inbox: an SSE reader over fetch, a WebSocket session with
// the hello exchange, one command round trip (send, then ack or refusal,
// then outcome), and a resuming subscriber that survives relay restarts and
// slow-consumer closes (AEP-0003 §3.5 rule 4, §5, §8.4) delivering every
// event exactly once (AEP-0001 §7 dedupe).
//
// In three files: client-sse.ts, client-socket.ts, client-resume.ts.
export * from './client-sse.ts';
export * from './client-socket.ts';
export * from './client-resume.ts';
