// A position in a session's stream and its order, for the relay's store
// (store.ts), its buffers (session-buffer.ts, memory-store.ts) and the fleet
// backplane's mirror: the kernel's one definition (engine/core/kernel/position.ts).
export { comparePositions as comparePos, positionOf, type Position } from '../../core/kernel/position.ts';
