// The jobs an instance list remembers, brought up to date from the box's own list: a job that
// exited (or was lost) is marked so, with its exit code and end time, exactly once.
import type { JobRef } from '../core/instances';
import type { JobInfo } from '../remote/jobs';

/** Job refs updated from the box's list: finished jobs are marked exited with their code. Returns the ones that just ended. */
export function mergeJobStates(refs: readonly JobRef[], jobs: readonly Pick<JobInfo, 'name' | 'state' | 'exitCode' | 'finishedAt'>[], now: number): { refs: JobRef[]; ended: JobRef[] } {
  const byName = new Map(jobs.map((j) => [j.name, j]));
  const ended: JobRef[] = [];
  const next = refs.map((r) => {
    const j = byName.get(r.id);
    if (!j || r.state === 'exited') return r;
    if (j.state === 'exited' || j.state === 'lost') {
      const done: JobRef = { ...r, state: 'exited', exitCode: j.exitCode, endedAt: j.finishedAt ?? now };
      ended.push(done);
      return done;
    }
    return r.state === 'running' ? r : { ...r, state: 'running' as const };
  });
  return { refs: next, ended };
}

