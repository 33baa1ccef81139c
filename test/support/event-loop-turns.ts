/**
 * Event-loop turns
 * ================
 * Counts the turns of the event loop (one setImmediate callback a turn) while a test awaits work
 * that should let the loop run between its pieces: `countTurns()` starts counting, and the function
 * it returns stops and gives the count.
 */

export function countTurns(): () => number {
  let turns = 0;
  let counting = true;
  const tick = (): void => {
    turns++;
    if (counting) setImmediate(tick);
  };
  setImmediate(tick);
  return () => {
    counting = false;
    return turns;
  };
}
