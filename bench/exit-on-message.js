// Preloaded (`--import`) into the profiled service: lets the bench end it with process.exit on
// an IPC message, so `--cpu-prof` writes its profile (a process killed by a signal writes none).
process.on('message', (message) => {
  if (message === 'exit') process.exit(0);
});
