// Long-running commands (serve, up): stop cleanly on SIGINT/SIGTERM, exit 1
// if the drain hangs.
export function waitForSignal(stop: () => Promise<void>, graceMs = 5000): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    const onSignal = () => {
      if (stopping) return;
      stopping = true;
      const force = setTimeout(() => resolve(1), graceMs);
      force.unref();
      stop().then(
        () => {
          clearTimeout(force);
          resolve(0);
        },
        () => resolve(1),
      );
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
}
