// CPU time read from /proc for another process (a service or worker the bench started), shared
// by both benchmarks.
import { readFileSync } from 'node:fs';

/** CPU time (user + system) a process has used so far, in milliseconds (Linux clock ticks of 10 ms). */
export function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
